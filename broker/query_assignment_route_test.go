package broker_test

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// routeNamesrv is a name server that answers GET_ROUTEINFO_BY_TOPIC only:
// with queues read queues of broker-a per topic, after waiting while
// stalled, or TOPIC_NOT_EXIST once the topic is removed.
type routeNamesrv struct {
	srv     *remoting.Server
	asked   atomic.Int64
	mu      sync.Mutex
	queues  map[string]int32 // guarded by mu
	release chan struct{}    // closed: stalled requests go on
	stalled atomic.Bool
	refuse  atomic.Bool  // answer SYSTEM_ERROR, which says nothing about the topic
	perm    atomic.Int32 // the queues' perm; 0: read and write
}

func startRouteNamesrv(t *testing.T) *routeNamesrv {
	t.Helper()
	n := &routeNamesrv{queues: map[string]int32{}, release: make(chan struct{})}
	cfg := remoting.NewNettyServerConfig()
	cfg.ListenAddr = "127.0.0.1:0"
	srv, err := remoting.NewServer(cfg, zaptest.NewLogger(t).Named("namesrv"))
	if err != nil {
		t.Fatal(err)
	}
	srv.RegisterProcessor(code.GetRouteinfoByTopic, remoting.ProcessorFunc(n.route), remoting.NewPool("route", 64, 1000))
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	n.srv = srv
	t.Cleanup(func() {
		n.unstall()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	return n
}

func (n *routeNamesrv) unstall() {
	if n.stalled.CompareAndSwap(true, false) {
		close(n.release)
	}
}

func (n *routeNamesrv) set(topic string, queues int32) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if queues == 0 {
		delete(n.queues, topic)
		return
	}
	n.queues[topic] = queues
}

func (n *routeNamesrv) route(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	n.asked.Add(1)
	if n.stalled.Load() {
		<-n.release
	}
	if n.refuse.Load() {
		return codec.NewResponse(code.SystemError, "busy"), nil
	}
	topic := req.ExtFields["topic"]
	n.mu.Lock()
	q, ok := n.queues[topic]
	n.mu.Unlock()
	if !ok {
		return codec.NewResponse(code.TopicNotExist, "No topic route info in name server for the topic: "+topic), nil
	}
	rd := &body.TopicRouteData{
		QueueDatas:  []body.QueueData{{BrokerName: "broker-a", ReadQueueNums: q, WriteQueueNums: q, Perm: cmp.Or(n.perm.Load(), 6)}},
		BrokerDatas: []body.BrokerData{{Cluster: "DefaultCluster", BrokerName: "broker-a", BrokerAddrs: map[int64]string{0: "127.0.0.1:1"}}},
	}
	resp := codec.NewResponse(code.Success, "")
	resp.Body = rd.Encode(true)
	return resp, nil
}

func assignmentReq(topic, group, clientID string) *codec.RemotingCommand {
	return codec.NewRequest(code.QueryAssignment, nil, []byte(`{"clientId":"`+clientID+`","consumerGroup":"`+group+
		`","messageModel":"CLUSTERING","strategyName":"AVG","topic":"`+topic+`"}`))
}

// TestBrokerQueryAssignmentStalledNamesrvDoesNotDelayAcks: QUERY_ASSIGNMENTs
// waiting on a name server that does not answer hold up neither ACK_MESSAGE
// nor CHANGE_MESSAGE_INVISIBLETIME (5.x runs them on separate executors):
// the ack is answered while every assignment is still waiting.
func TestBrokerQueryAssignmentStalledNamesrvDoesNotDelayAcks(t *testing.T) {
	t.Parallel()
	ns := startRouteNamesrv(t)
	ns.stalled.Store(true)
	const workers = 2
	e := newConsumeEnv(t, func(cfg *broker.BrokerConfig, _ *store.MessageStoreConfig) {
		cfg.NamesrvAddr = ns.srv.Addr().String()
		cfg.ConsumerManageThreadPoolNums = workers
	})
	e.send("QaStall", 0, nil, "a")
	e.send("QaStall", 0, nil, "b")
	e.waitDispatched("QaStall", 0, 2)
	_, _, got := e.pop("sg", "QaStall", 0, 32, 60_000, 0)
	if len(got) != 2 {
		t.Fatalf("popped %d", len(got))
	}
	var answered atomic.Int64
	for i := range 2 * workers {
		err := e.c.InvokeAsync(context.Background(), e.addr, assignmentReq(fmt.Sprintf("QaStall%d", i), "sg", "c1"),
			func(*codec.RemotingCommand, error) { answered.Add(1) })
		if err != nil {
			t.Fatal(err)
		}
	}
	// Every consumer-manage worker would now be waiting on the name server.
	testutil.Eventually(t, 10*time.Second, func() error {
		if n := ns.asked.Load(); n < workers {
			return fmt.Errorf("name server asked %d times", n)
		}
		return nil
	})
	e.expect(e.ack("sg", got[0]), code.Success, "")
	resp, _ := e.changeInvisible("sg", got[1], 60_000)
	e.expect(resp, code.Success, "")
	if n := answered.Load(); n != 0 {
		t.Fatalf("the ack waited for %d assignment(s) to give up on the name server", n)
	}
	ns.unstall()
	testutil.Eventually(t, 10*time.Second, func() error {
		if n := answered.Load(); n != 2*workers {
			return fmt.Errorf("assignments answered %d", n)
		}
		return nil
	})
}

// TestBrokerQueryAssignmentRouteCache: a topic's route is read from the
// name server once and then served from the cache; the periodic refresh
// picks up a changed route and drops a topic the name server no longer
// knows.
func TestBrokerQueryAssignmentRouteCache(t *testing.T) {
	t.Parallel()
	ns := startRouteNamesrv(t)
	ns.set("QaCache", 2)
	b := testutil.StartBroker(t, ns.srv.Addr().String())
	cc := newCMClient(t, b.Addr().String(), "c1")
	cc.heartbeat("cg", "", "QaCache")
	want := func(w string) {
		t.Helper()
		if _, a := queryAssignment(t, cc, "QaCache", "cg", "c1"); queues(a) != w {
			t.Fatalf("assignment %q, want %q", queues(a), w)
		}
	}
	want("broker-a/QaCache/0/PULL,broker-a/QaCache/1/PULL")
	asked := ns.asked.Load()
	want("broker-a/QaCache/0/PULL,broker-a/QaCache/1/PULL")
	if n := ns.asked.Load(); n != asked {
		t.Fatalf("a cached route asked the name server again (%d → %d)", asked, n)
	}
	ns.set("QaCache", 3)
	broker.RefreshAssignmentRoutes(b)
	want("broker-a/QaCache/0/PULL,broker-a/QaCache/1/PULL,broker-a/QaCache/2/PULL")
	ns.refuse.Store(true) // a refusal other than TOPIC_NOT_EXIST keeps the last route
	broker.RefreshAssignmentRoutes(b)
	ns.refuse.Store(false)
	want("broker-a/QaCache/0/PULL,broker-a/QaCache/1/PULL,broker-a/QaCache/2/PULL")
	ns.set("QaCache", 0)
	broker.RefreshAssignmentRoutes(b)
	want("") // asked again: TOPIC_NOT_EXIST, no answer
	if n := ns.asked.Load(); n != asked+4 {
		t.Fatalf("name server asked %d times after the first, want 4", n-asked)
	}
}

// TestBrokerQueryAssignmentEmptyRouteAskedAgain: a cached route without a
// readable queue is not served from the cache; the name server is asked
// again at once, as 5.x's getTopicSubscribeInfo does for an empty set, so
// a topic made readable is assigned without waiting for the refresh.
func TestBrokerQueryAssignmentEmptyRouteAskedAgain(t *testing.T) {
	t.Parallel()
	ns := startRouteNamesrv(t)
	ns.set("QaEmpty", 2)
	ns.perm.Store(2) // write only: no readable queue
	b := testutil.StartBroker(t, ns.srv.Addr().String())
	cc := newCMClient(t, b.Addr().String(), "c1")
	cc.heartbeat("cg", "", "QaEmpty")
	if _, a := queryAssignment(t, cc, "QaEmpty", "cg", "c1"); queues(a) != "" {
		t.Fatalf("assignment of an unreadable topic %q", queues(a))
	}
	ns.perm.Store(6)
	if _, a := queryAssignment(t, cc, "QaEmpty", "cg", "c1"); queues(a) != "broker-a/QaEmpty/0/PULL,broker-a/QaEmpty/1/PULL" {
		t.Fatalf("assignment once readable %q: the empty route was served from the cache", queues(a))
	}
}

// TestBrokerQueryAssignmentRetryRouteKeptWhenGone: the periodic refresh
// drops a topic the name server no longer knows, except a retry topic,
// whose last route is kept as 5.x's updateTopicRouteInfoFromNameServer
// does (it skips cleanNoneRouteTopic for retry topics).
func TestBrokerQueryAssignmentRetryRouteKeptWhenGone(t *testing.T) {
	t.Parallel()
	ns := startRouteNamesrv(t)
	const retry = "%RETRY%cg"
	ns.set(retry, 1)
	b := testutil.StartBroker(t, ns.srv.Addr().String())
	cc := newCMClient(t, b.Addr().String(), "c1")
	cc.heartbeat("cg", "", "QaRetry")
	const want = "broker-a/%RETRY%cg/0/PULL"
	if _, a := queryAssignment(t, cc, retry, "cg", "c1"); queues(a) != want {
		t.Fatalf("assignment %q, want %q", queues(a), want)
	}
	ns.set(retry, 0)
	broker.RefreshAssignmentRoutes(b)
	if _, a := queryAssignment(t, cc, retry, "cg", "c1"); queues(a) != want {
		t.Fatalf("assignment after the name server forgot the retry topic %q, want the last route %q", queues(a), want)
	}
}
