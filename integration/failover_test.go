package integration

// Controller mode end to end (5.x automatic failover): in-process
// controllers, a name server and a group of brokers that all start as
// SLAVE with brokerId -1, as in Apache's quick start. The controller
// assigns ids and elects the master; the official Go client produces.

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/apache/rocketmq-client-go/v2/rlog"
	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker"
	bctl "github.com/rocketmq-go/rmq/broker/controller"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/controller"
	ctlclient "github.com/rocketmq-go/rmq/controller/client"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/props"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/namesrv"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// foEnv is a controller cluster, a name server and one broker group in
// controller mode.
type foEnv struct {
	t       testing.TB
	ctl     *testutil.ControllerCluster
	ns      *namesrv.Namesrv
	nsAddr  string
	topic   string
	nodes   []*foNode
	brokerN string
}

// foNode is one broker of the group: its configuration (kept so it can be
// restarted on the same store) and the running broker.
type foNode struct {
	name string
	cfg  *broker.BrokerConfig
	scfg *store.MessageStoreConfig
	b    *broker.Broker // nil while stopped
}

type foOpt func(*broker.BrokerConfig, *store.MessageStoreConfig)

// foTimings are the test's controller-mode periods: short so a failover
// takes seconds, as a production deployment would tune them.
func foTimings(c *broker.BrokerConfig, s *store.MessageStoreConfig) {
	c.BrokerHeartbeatInterval = 200
	c.ControllerHeartBeatTimeoutMills = 3000
	c.SyncBrokerMetadataPeriod = 500
	c.CheckSyncStateSetPeriod = 500
	c.SyncControllerMetadataPeriod = 2000
	s.HAMaxTimeSlaveNotCatchup = 5000
}

func newFailoverEnv(t testing.TB, controllers, brokers int, ctlOpts []testutil.ControllerOption, opts ...foOpt) *foEnv {
	t.Helper()
	rlog.SetLogLevel("error")
	e := &foEnv{t: t, ctl: testutil.StartControllers(t, controllers, ctlOpts...), topic: uniqueName("FOT"), brokerN: "broker-a"}
	e.ns = testutil.StartNamesrv(t)
	e.nsAddr = e.ns.Addr().String()
	for i := range brokers {
		cfg, scfg := testutil.NewBrokerConfigs(t, e.nsAddr)
		cfg.BrokerName = e.brokerN
		cfg.EnableControllerMode = true
		cfg.ControllerAddr = e.ctl.ControllerAddr()
		cfg.BrokerID = -1
		scfg.BrokerRole = store.Slave
		scfg.AllAckInSyncStateSet = true
		scfg.SyncFlushTimeout = 3000
		foTimings(cfg, scfg)
		for _, o := range opts {
			o(cfg, scfg)
		}
		n := &foNode{name: "b" + strconv.Itoa(i), cfg: cfg, scfg: scfg}
		e.nodes = append(e.nodes, n)
		e.start(n)
	}
	return e
}

// start (re)starts n on its store with fresh ephemeral ports.
func (e *foEnv) start(n *foNode) {
	e.t.Helper()
	srv := broker.NewNettyServerConfig()
	srv.ListenPort = 0
	srv.ListenAddr = "127.0.0.1:0"
	b, err := broker.New(n.cfg.Clone(), n.scfg, broker.Options{ServerConfig: srv, FastListenAddr: "127.0.0.1:0",
		Logger: zaptest.NewLogger(e.t).Named(n.name)})
	if err != nil {
		e.t.Fatalf("start %s: %v", n.name, err)
	}
	if err := b.Start(); err != nil {
		foStop(e.t, b)
		e.t.Fatalf("start %s: %v", n.name, err)
	}
	e.t.Cleanup(func() { foStop(e.t, b) })
	n.b = b
}

// kill stops n (its connections close, as on kill -9; the store is
// flushed, which a crash would not do: the unreplicated-tail test adds a
// tail explicitly).
func (e *foEnv) kill(n *foNode) {
	e.t.Helper()
	foStop(e.t, n.b)
	n.b = nil
}

func foStop(t testing.TB, b *broker.Broker) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := b.Shutdown(ctx); err != nil {
		t.Errorf("broker shutdown: %v", err)
	}
}

// master waits until exactly one running broker acts as master, with a
// role (not fenced), and returns it.
func (e *foEnv) master(within time.Duration) *foNode {
	e.t.Helper()
	var m *foNode
	testutil.Eventually(e.t, within, func() error {
		m = nil
		for _, n := range e.nodes {
			if n.b == nil || n.b.Replicas() == nil {
				continue
			}
			if r := n.b.Replicas(); r.IsMaster() && !r.Fenced() {
				if m != nil {
					return fmt.Errorf("two masters: %s and %s", m.name, n.name)
				}
				m = n
			}
		}
		if m == nil {
			return fmt.Errorf("no master yet")
		}
		return nil
	})
	return m
}

// route is the name server's view of the group: brokerId → address.
func (e *foEnv) route() map[int64]string {
	return e.ns.RouteInfoManager().GetBrokerMemberGroup(e.nodes[0].cfg.BrokerClusterName, e.brokerN).BrokerAddrs
}

// waitRoute waits until the route shows master as brokerId 0 and each
// other running broker with its controller-assigned id (≥ 1).
func (e *foEnv) waitRoute(master *foNode, within time.Duration) {
	e.t.Helper()
	testutil.Eventually(e.t, within, func() error {
		want := map[int64]string{0: master.b.BrokerAddr()}
		for _, n := range e.nodes {
			if n == master || n.b == nil {
				continue
			}
			id := n.b.Replicas().BrokerID()
			if id < 1 {
				return fmt.Errorf("%s has controller id %d", n.name, id)
			}
			want[id] = n.b.BrokerAddr()
		}
		if got := e.route(); !mapsEqual(got, want) {
			return fmt.Errorf("route %v, want %v", got, want)
		}
		return nil
	})
}

func mapsEqual(a, b map[int64]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// syncStateSet is the group's master (-1 when none), master epoch and
// SyncStateSet as the controller leader holds them; a failed query (leader
// changing, loaded machine) is retried for up to 15 s.
func (e *foEnv) syncStateSet() (master int64, epoch int32, set []int64) {
	e.t.Helper()
	rc := remoting.NewClient(remoting.NewNettyClientConfig(), nil)
	defer func() { _ = rc.Shutdown(context.Background()) }()
	cli := ctlclient.New(rc, e.ctl.Addrs, nil)
	testutil.Eventually(e.t, 15*time.Second, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		r, err := cli.GetReplicaInfo(ctx, e.brokerN)
		if err != nil {
			return fmt.Errorf("GET_REPLICA_INFO: %w", err)
		}
		master, epoch = -1, 0
		if r.Header.MasterBrokerID != nil && r.Header.MasterAddress != "" {
			master = *r.Header.MasterBrokerID
		}
		if r.Header.MasterEpoch != nil {
			epoch = *r.Header.MasterEpoch
		}
		set = slices.Sorted(slices.Values(r.SyncStateSet.SyncStateSet))
		return nil
	})
	return master, epoch, set
}

// createTopic creates the 4-queue topic on the master and copies it to the
// running slaves now (slave sync would within 10 s).
func (e *foEnv) createTopic(master *foNode) {
	e.t.Helper()
	tc := body.NewTopicConfig(e.topic)
	tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm = 4, 4, 6
	master.b.Topics().UpdateTopicConfig(tc)
	master.b.RegisterBrokerAll(false)
	for _, n := range e.nodes {
		if n != master && n.b != nil {
			testutil.Eventually(e.t, 10*time.Second, func() error {
				n.b.SyncAll(context.Background())
				if n.b.Topics().SelectTopicConfig(e.topic) == nil {
					return fmt.Errorf("%s lacks topic %s", n.name, e.topic)
				}
				return nil
			})
		}
	}
}

func (e *foEnv) producer(retries int) rocketmq.Producer {
	e.t.Helper()
	p, err := producer.NewDefaultProducer(
		producer.WithNsResolver(primitive.NewPassthroughResolver([]string{e.nsAddr})),
		producer.WithGroupName(uniqueName("fopg")), producer.WithInstanceName(uniqueName("fop")),
		producer.WithRetry(retries),
		producer.WithSendMsgTimeout(5*time.Second),
	)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := p.Start(); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = p.Shutdown() })
	return p
}

// TestFailoverElectsMasterAndRoutesIt: three brokers started as in 5.x's
// quick start (SLAVE, brokerId -1) get distinct controller ids kept in
// their brokerIdentity files; one becomes master, registered as brokerId 0,
// the others as slaves with their ids; the SyncStateSet grows to all three;
// an unmodified producer's sends are SEND_OK and on every replica.
func TestFailoverElectsMasterAndRoutesIt(t *testing.T) {
	e := newFailoverEnv(t, 1, 3, nil)
	m := e.master(30 * time.Second)
	e.waitRoute(m, 30*time.Second)
	ids := map[int64]bool{}
	for _, n := range e.nodes {
		id := n.b.Replicas().BrokerID()
		md, ok, err := bctl.ReadMetadata(bctl.MetadataPath(n.scfg.StorePathRootDir), false)
		if err != nil || !ok || md.BrokerID != id || md.BrokerName != e.brokerN || md.ClusterName != n.cfg.BrokerClusterName {
			t.Fatalf("%s: brokerIdentity %+v ok %v err %v, controller id %d", n.name, md, ok, err, id)
		}
		ids[id] = true
		if wantSlave := n != m; n.b.IsSlave() != wantSlave {
			t.Fatalf("%s: IsSlave %v, master is %s", n.name, n.b.IsSlave(), m.name)
		}
	}
	if len(ids) != 3 {
		t.Fatalf("controller ids not distinct: %v", ids)
	}
	foCheckEpochCache(t, m, 0)
	for _, n := range e.nodes {
		if n != m {
			foCheckEpochCache(t, n, n.b.Replicas().BrokerID())
		}
	}
	testutil.Eventually(t, 30*time.Second, func() error {
		if _, _, set := e.syncStateSet(); len(set) != 3 {
			return fmt.Errorf("syncStateSet %v, want all three", set)
		}
		return nil
	})
	e.createTopic(m)
	p := e.producer(2)
	for i := range 20 {
		r, err := p.SendSync(context.Background(), primitive.NewMessage(e.topic, []byte("elect-"+strconv.Itoa(i))))
		if err != nil || r.Status != primitive.SendOK {
			t.Fatalf("send %d: %v %v", i, r, err)
		}
	}
	// SEND_OK under allAckInSyncStateSet: every member holds the bytes;
	// a replica's consume queues follow as its dispatcher catches up.
	for _, n := range e.nodes {
		testutil.Eventually(t, 10*time.Second, func() error {
			got := foBodies(n.b.Store(), e.topic)
			for i := range 20 {
				if !got["elect-"+strconv.Itoa(i)] {
					return fmt.Errorf("%s lacks acknowledged message %d", n.name, i)
				}
			}
			return nil
		})
	}
}

// foBodies lists every body topic's queues serve on st.
func foBodies(st store.MessageStore, topic string) map[string]bool {
	out := map[string]bool{}
	for q := int32(0); q < 4; q++ {
		max := st.MaxOffsetInQueue(topic, q)
		for off := st.MinOffsetInQueue(topic, q); off < max; {
			r := st.GetMessage("fo", topic, q, off, 32, nil)
			if r == nil || len(r.Messages) == 0 {
				break
			}
			msgs, err := message.DecodeRecords(r.Body, true)
			if err != nil {
				break
			}
			for _, m := range msgs {
				out[string(m.Body)] = true
			}
			off = r.NextBeginOffset
		}
	}
	return out
}

// foLoad is a producer sending "fo-<i>" without pause on its own goroutine,
// recording every SEND_OK.
type foLoad struct {
	mu       sync.Mutex
	acked    []string      // bodies answered SEND_OK, in order
	ackedBy  []string      // the storing broker (from the offset msgId) of each
	ackedAt  []time.Time   // when each SEND_OK arrived
	failures int           // sends not SEND_OK
	stop     chan struct{} // closed by halt
	done     chan struct{} // closed when the goroutine returned
}

func startLoad(t *testing.T, p rocketmq.Producer, topic string) *foLoad {
	l := &foLoad{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(l.done)
		for i := 0; ; i++ {
			select {
			case <-l.stop:
				return
			default:
			}
			b := "fo-" + strconv.Itoa(i)
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			r, err := p.SendSync(ctx, primitive.NewMessage(topic, []byte(b)))
			cancel()
			l.mu.Lock()
			if err == nil && r.Status == primitive.SendOK {
				host, _, _ := message.DecodeOffsetMsgID(r.OffsetMsgID)
				l.acked = append(l.acked, b)
				l.ackedBy = append(l.ackedBy, host.String())
				l.ackedAt = append(l.ackedAt, time.Now())
			} else {
				l.failures++
			}
			l.mu.Unlock()
			if err != nil {
				time.Sleep(20 * time.Millisecond)
			}
		}
	}()
	t.Cleanup(l.halt)
	return l
}

func (l *foLoad) halt() {
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	<-l.done
}

func (l *foLoad) snapshot() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.acked)
}

// firstOKFrom is when the first SEND_OK stored by addr arrived (zero if
// none yet).
func (l *foLoad) firstOKFrom(addr string) time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, by := range l.ackedBy {
		if by == addr {
			return l.ackedAt[i]
		}
	}
	return time.Time{}
}

func (l *foLoad) waitAcked(t *testing.T, n int, within time.Duration) {
	t.Helper()
	testutil.Eventually(t, within, func() error {
		if a := l.snapshot(); len(a) < n {
			return fmt.Errorf("%d messages acknowledged, waiting for %d", len(a), n)
		}
		return nil
	})
}

// TestFailoverKillMasterUnderLoad: under continuous produce by an
// unmodified Go producer the master of a 3-replica group is killed; a
// member of the SyncStateSet becomes master and registers as brokerId 0;
// the producer resumes after its route refresh (the Go client refreshes
// every 30 s, which bounds this test's length); every SEND_OK message is
// readable from the new master. The old master restarts on its store,
// keeps its controller id, rejoins as a slave and ends with a CommitLog
// byte-identical to the new master's.
func TestFailoverKillMasterUnderLoad(t *testing.T) {
	e := newFailoverEnv(t, 1, 3, nil)
	old := e.master(30 * time.Second)
	e.waitRoute(old, 30*time.Second)
	testutil.Eventually(t, 30*time.Second, func() error {
		if _, _, set := e.syncStateSet(); len(set) != 3 {
			return fmt.Errorf("syncStateSet %v, want all three", set)
		}
		return nil
	})
	e.createTopic(old)
	recv := newReceived()
	foStartConsumer(t, e, uniqueName("fopc"), recv)
	load := startLoad(t, e.producer(2), e.topic)
	load.waitAcked(t, 200, 30*time.Second)

	_, epochBefore, setBefore := e.syncStateSet()
	oldID := old.b.Replicas().BrokerID()
	killedAt := time.Now()
	e.kill(old)
	nm := e.master(30 * time.Second)
	electedAfter := time.Since(killedAt)
	newID := nm.b.Replicas().BrokerID()
	if !slices.Contains(setBefore, newID) {
		t.Fatalf("new master %d was not in the SyncStateSet %v", newID, setBefore)
	}
	if nm.b.Replicas().MasterEpoch() <= epochBefore {
		t.Fatalf("new master epoch %d, old %d", nm.b.Replicas().MasterEpoch(), epochBefore)
	}
	e.waitRoute(nm, 30*time.Second)
	testutil.Eventually(t, 60*time.Second, func() error {
		if load.firstOKFrom(nm.b.BrokerAddr()).IsZero() {
			return fmt.Errorf("producer has not resumed on the new master")
		}
		return nil
	})
	load.waitAcked(t, len(load.snapshot())+50, 30*time.Second)
	load.halt()
	acked, first := load.snapshot(), load.firstOKFrom(nm.b.BrokerAddr())
	t.Logf("failover: new master %s (id %d) %v after the kill; first SEND_OK on it %v after; %d acknowledged, %d failed sends",
		nm.name, newID, electedAfter.Round(time.Millisecond), first.Sub(killedAt).Round(time.Millisecond), len(acked), load.failures)

	testutil.Eventually(t, 15*time.Second, func() error {
		got := foBodies(nm.b.Store(), e.topic)
		var lost []string
		for _, b := range acked {
			if !got[b] {
				lost = append(lost, b)
			}
		}
		if len(lost) > 0 {
			return fmt.Errorf("%d acknowledged messages not on the new master, e.g. %v", len(lost), lost[:min(5, len(lost))])
		}
		return nil
	})

	// A crash can leave records the replicas never received: write some
	// into the old master's store while it is down.
	tail := foAppendTail(t, old.scfg, e.topic, 20)
	// The push consumer, started before the failover, gets every
	// acknowledged message and re-consumes at most an in-flight batch (32
	// per queue): it continues from its own offsets on the new master.
	testutil.Eventually(t, 60*time.Second, func() error {
		for _, b := range acked {
			if !recv.has(b) {
				return fmt.Errorf("push consumer has not received %q", b)
			}
		}
		return nil
	})
	dup := recv.duplicates()
	t.Logf("push consumer: %d of %d messages consumed more than once across the failover", dup, recv.count())
	if dup > 4*32 {
		t.Fatalf("push consumer re-consumed %d messages, more than its in-flight batches", dup)
	}

	e.start(old)
	testutil.Eventually(t, 30*time.Second, func() error {
		r := old.b.Replicas()
		if r.BrokerID() != oldID || r.IsMaster() || !old.b.IsSlave() || r.MasterEpoch() != nm.b.Replicas().MasterEpoch() {
			return fmt.Errorf("restarted old master: id %d (was %d), master %v, epoch %d", r.BrokerID(), oldID, r.IsMaster(), r.MasterEpoch())
		}
		return nil
	})
	e.waitRoute(nm, 30*time.Second)
	foWaitIdentical(t, nm.b.Store(), old.b.Store())
	got := foBodies(old.b.Store(), e.topic)
	for _, b := range tail {
		if got[b] {
			t.Fatalf("rejoined replica still serves its unreplicated %q", b)
		}
	}
}

// foAppendTail opens the stopped broker's store as a master, appends n
// records ("tail-<i>") and closes it: the tail a master holds when it dies
// before replicating it.
func foAppendTail(t *testing.T, scfg *store.MessageStoreConfig, topic string, n int) []string {
	t.Helper()
	cfg := *scfg
	cfg.BrokerRole = store.AsyncMaster
	st, err := store.Open(&cfg, zaptest.NewLogger(t).Named("tail"))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Start(); err != nil {
		t.Fatal(err)
	}
	host := netip.MustParseAddrPort("127.0.0.1:10911")
	var out []string
	for i := range n {
		b := "tail-" + strconv.Itoa(i)
		m := &message.MessageExt{Message: message.Message{Topic: topic, Body: []byte(b)}, QueueID: int32(i % 4),
			BornTimestamp: time.Now().UnixMilli(), BornHost: host, StoreHost: host}
		if r := st.PutMessage(m); r.Status != commitlog.PutOK {
			t.Fatalf("append tail: %v", r.Status)
		}
		out = append(out, b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := st.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	return out
}

// foWaitIdentical waits until the replica's CommitLog is byte-identical to
// the master's over the master's whole range.
func foWaitIdentical(t *testing.T, m, r store.MessageStore) {
	t.Helper()
	testutil.Eventually(t, 30*time.Second, func() error {
		if a, b := m.MaxPhyOffset(), r.MaxPhyOffset(); a != b || m.MinPhyOffset() != r.MinPhyOffset() {
			return fmt.Errorf("replica CommitLog [%d,%d), master [%d,%d)", r.MinPhyOffset(), b, m.MinPhyOffset(), a)
		}
		return nil
	})
	end := m.MaxPhyOffset()
	if !bytes.Equal(haCommitLog(t, m, end), haCommitLog(t, r, end)) {
		t.Fatal("replica CommitLog differs from the master's")
	}
}

// TestFailoverNoUncleanElection: the master's only replica leaves the
// SyncStateSet (stopped), the master takes more writes alone and dies; the
// replica comes back. Without enableElectUncleanMaster the controller
// elects no one (the replica lacks acknowledged writes) and the replica
// stays out of the route; with it the replica becomes master.
func TestFailoverNoUncleanElection(t *testing.T) {
	for _, unclean := range []bool{false, true} {
		t.Run("enableElectUncleanMaster="+strconv.FormatBool(unclean), func(t *testing.T) {
			e := newFailoverEnv(t, 1, 2, []testutil.ControllerOption{func(c *controller.Config) { c.EnableElectUncleanMaster = unclean }})
			a := e.master(30 * time.Second)
			b := e.nodes[0]
			if b == a {
				b = e.nodes[1]
			}
			testutil.Eventually(t, 30*time.Second, func() error {
				if _, _, set := e.syncStateSet(); len(set) != 2 {
					return fmt.Errorf("syncStateSet %v, want both", set)
				}
				return nil
			})
			aID, bID := a.b.Replicas().BrokerID(), b.b.Replicas().BrokerID()
			e.kill(b)
			testutil.Eventually(t, 30*time.Second, func() error {
				if _, _, set := e.syncStateSet(); !slices.Equal(set, []int64{aID}) {
					return fmt.Errorf("syncStateSet %v, want [%d] after the replica left", set, aID)
				}
				return nil
			})
			e.createTopic(a)
			p := e.producer(0)
			for i := range 10 {
				if r, err := p.SendSync(context.Background(), primitive.NewMessage(e.topic, []byte("alone-"+strconv.Itoa(i)))); err != nil || r.Status != primitive.SendOK {
					t.Fatalf("send %d with the master alone in the set: %v %v", i, r, err)
				}
			}
			_, epoch, _ := e.syncStateSet()
			e.kill(a)
			e.start(b)
			if unclean {
				nm := e.master(30 * time.Second)
				if nm != b || b.b.Replicas().BrokerID() != bID || b.b.Replicas().MasterEpoch() <= epoch {
					t.Fatalf("unclean election: master %s (want %s) id %d (want %d) epoch %d (before %d)", nm.name, b.name,
						b.b.Replicas().BrokerID(), bID, b.b.Replicas().MasterEpoch(), epoch)
				}
				e.waitRoute(b, 30*time.Second)
				return
			}
			// The replica registers and heartbeats; give the controller
			// several scans and the broker several polls to (wrongly) elect.
			testutil.Eventually(t, 30*time.Second, func() error {
				if b.b.Replicas().BrokerID() != bID {
					return fmt.Errorf("replica not registered again yet")
				}
				return nil
			})
			deadline := time.Now().Add(3 * time.Second)
			for time.Now().Before(deadline) {
				if r := b.b.Replicas(); r.IsMaster() || !b.b.IsSlave() {
					t.Fatal("replica outside the SyncStateSet was elected without enableElectUncleanMaster")
				}
				if _, ok := e.route()[0]; ok {
					t.Fatalf("route has a master: %v", e.route())
				}
				time.Sleep(100 * time.Millisecond)
			}
			if m, _, _ := e.syncStateSet(); m != -1 {
				t.Fatalf("controller names master %d", m)
			}
		})
	}
}

// ctlProxy sits between brokers and a controller and forwards whole
// remoting frames. A connection whose frames name a broker address (the
// brokerAddr of BROKER_HEARTBEAT, the brokerAddress of registration) is
// that broker's; once cut, nothing passes on it either way while the
// connection stays open: the broker's controller traffic is dropped, as a
// network partition would drop it.
type ctlProxy struct {
	ln     net.Listener
	target atomic.Pointer[string]
	cut    atomic.Pointer[string]
}

func startCtlProxy(t *testing.T) *ctlProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &ctlProxy{ln: ln}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	track := func(c net.Conn) {
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
	}
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", *p.target.Load())
			if err != nil {
				_ = c.Close()
				continue
			}
			track(c)
			track(s)
			var owner atomic.Pointer[string]
			wg.Add(2)
			go func() { defer wg.Done(); p.pipe(c, s, &owner, true) }()
			go func() { defer wg.Done(); p.pipe(s, c, &owner, false) }()
		}
	}()
	return p
}

func (p *ctlProxy) addr() string { return p.ln.Addr().String() }

func (p *ctlProxy) cutBroker(addr string) { p.cut.Store(&addr) }

func (p *ctlProxy) isCut(owner *atomic.Pointer[string]) bool {
	o, c := owner.Load(), p.cut.Load()
	return o != nil && c != nil && *o == *c
}

// pipe copies frames from src to dst; fromBroker frames identify the owner.
func (p *ctlProxy) pipe(src, dst net.Conn, owner *atomic.Pointer[string], fromBroker bool) {
	defer func() {
		_ = src.Close()
		if !p.isCut(owner) { // a partition does not carry the close either
			_ = dst.Close()
		}
	}()
	var lenBuf [4]byte
	for {
		if _, err := io.ReadFull(src, lenBuf[:]); err != nil {
			return
		}
		n := binary.BigEndian.Uint32(lenBuf[:])
		if n > 16<<20 {
			return
		}
		frame := make([]byte, 4+int(n))
		copy(frame, lenBuf[:])
		if _, err := io.ReadFull(src, frame[4:]); err != nil {
			return
		}
		if fromBroker {
			if cmd, err := codec.Decode(frame); err == nil {
				for _, k := range []string{"brokerAddr", "brokerAddress"} {
					if a := cmd.ExtFields[k]; a != "" {
						owner.Store(&a)
					}
				}
			}
		}
		if p.isCut(owner) {
			continue // partitioned: dropped
		}
		if _, err := dst.Write(frame); err != nil {
			return
		}
	}
}

// TestFailoverFencedMasterStopsAcking: with allAckInSyncStateSet off (the
// 5.x default) a master whose controller traffic is dropped fences itself
// (SEND answers SERVICE_NOT_AVAILABLE) before the controller, which stops
// hearing it, elects its replica; no write it acknowledged exists only on
// its side.
func TestFailoverFencedMasterStopsAcking(t *testing.T) {
	proxy := startCtlProxy(t)
	e := newFailoverEnv(t, 1, 2, []testutil.ControllerOption{func(c *controller.Config) {
		target := c.Listener.Addr().String()
		proxy.target.Store(&target)
		c.ControllerDLegerPeers = "n0-" + proxy.addr() // brokers reach the controller, and its leader address, through the proxy
	}}, func(c *broker.BrokerConfig, s *store.MessageStoreConfig) {
		c.ControllerAddr = proxy.addr()
		s.AllAckInSyncStateSet = false
	})
	a := e.master(30 * time.Second)
	b := e.nodes[0]
	if b == a {
		b = e.nodes[1]
	}
	testutil.Eventually(t, 30*time.Second, func() error {
		if _, _, set := e.syncStateSet(); len(set) != 2 {
			return fmt.Errorf("syncStateSet %v, want both", set)
		}
		return nil
	})
	e.createTopic(a)
	load := startLoad(t, e.producer(0), e.topic)
	load.waitAcked(t, 100, 30*time.Second)
	_, epoch, _ := e.syncStateSet()

	cutAt := time.Now()
	proxy.cutBroker(a.b.BrokerAddr())
	var electedSeen time.Time
	testutil.Eventually(t, 30*time.Second, func() error {
		if _, ep, _ := e.syncStateSet(); ep <= epoch {
			return fmt.Errorf("controller still at master epoch %d", ep)
		}
		electedSeen = time.Now()
		return nil
	})
	fencedAt := a.b.Replicas().FencedSince()
	if fencedAt.IsZero() || !fencedAt.Before(electedSeen) {
		t.Fatalf("cut-off master fenced at %v, new master seen elected at %v (cut at %v)", fencedAt, electedSeen, cutAt)
	}
	nm := e.master(30 * time.Second)
	if nm != b {
		t.Fatalf("new master %s, want %s", nm.name, b.name)
	}
	load.halt()
	t.Logf("master fenced %v after the cut; new master elected (seen) %v after",
		fencedAt.Sub(cutAt).Round(time.Millisecond), electedSeen.Sub(cutAt).Round(time.Millisecond))

	load.mu.Lock()
	var fromOld []string
	for i, by := range load.ackedBy {
		if by == a.b.BrokerAddr() {
			fromOld = append(fromOld, load.acked[i])
			if load.ackedAt[i].After(electedSeen) {
				t.Errorf("old master acknowledged %q after the new master was elected", load.acked[i])
			}
		}
	}
	load.mu.Unlock()
	testutil.Eventually(t, 15*time.Second, func() error {
		got := foBodies(nm.b.Store(), e.topic)
		for _, m := range fromOld {
			if !got[m] {
				return fmt.Errorf("acknowledged %q exists only on the fenced master", m)
			}
		}
		return nil
	})
	if len(fromOld) < 100 {
		t.Fatalf("only %d acknowledgements from the old master", len(fromOld))
	}
}

// TestFailoverControllerLeaderKilled: with three controllers, killing the
// controller leader leaves the group's master in place; another controller
// leads, and a following broker failover still elects a SyncStateSet
// member that a new producer reaches. With every controller down the
// master keeps acknowledging writes (allAckInSyncStateSet: no lease
// fence).
func TestFailoverControllerLeaderKilled(t *testing.T) {
	e := newFailoverEnv(t, 3, 3, nil)
	m := e.master(30 * time.Second)
	testutil.Eventually(t, 30*time.Second, func() error {
		if _, _, set := e.syncStateSet(); len(set) != 3 {
			return fmt.Errorf("syncStateSet %v, want all three", set)
		}
		return nil
	})
	e.createTopic(m)
	_, epoch, setBefore := e.syncStateSet()

	lead := e.ctl.Leader(t)
	foShutdownController(t, lead)
	testutil.Eventually(t, 20*time.Second, func() error {
		for _, n := range e.ctl.Nodes {
			if n != lead && n.IsLeader() {
				return nil
			}
		}
		return fmt.Errorf("no other controller leads yet")
	})
	if _, ep, _ := e.syncStateSet(); ep != epoch {
		t.Fatalf("master epoch moved from %d to %d although the master lives", epoch, ep)
	}
	if !m.b.Replicas().IsMaster() {
		t.Fatal("master lost its role when the controller leader died")
	}

	e.kill(m)
	nm := e.master(30 * time.Second)
	if !slices.Contains(setBefore, nm.b.Replicas().BrokerID()) {
		t.Fatalf("new master %d not from the SyncStateSet %v", nm.b.Replicas().BrokerID(), setBefore)
	}
	e.waitRoute(nm, 30*time.Second)
	p := e.producer(2)
	send := func(body string) {
		t.Helper()
		r, err := p.SendSync(context.Background(), primitive.NewMessage(e.topic, []byte(body)))
		if err != nil || r.Status != primitive.SendOK {
			t.Fatalf("send %s: %v %v", body, r, err)
		}
	}
	send("after-leader-change")

	for _, n := range e.ctl.Nodes {
		foShutdownController(t, n)
	}
	// Past the heartbeat timeout (3 s here) with no controller at all.
	deadline := time.Now().Add(time.Duration(nm.cfg.ControllerHeartBeatTimeoutMills)*time.Millisecond + 2*time.Second)
	for i := 0; time.Now().Before(deadline); i++ {
		send("controllers-down-" + strconv.Itoa(i))
		if nm.b.Replicas().Fenced() || !nm.b.Replicas().IsMaster() {
			t.Fatal("master stopped serving with the controllers down")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func foShutdownController(t *testing.T, c *controller.Controller) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Shutdown(ctx); err != nil {
		t.Fatalf("controller shutdown: %v", err)
	}
}

// foCheckEpochCache asks n for GET_BROKER_EPOCH_CACHE (mqadmin
// getBrokerEpoch): its brokerId as registered (0 on the master) and the
// epoch file: one epoch from offset 0 on the master of a fresh group.
func foCheckEpochCache(t *testing.T, n *foNode, wantID int64) {
	t.Helper()
	rc := remoting.NewClient(remoting.NewNettyClientConfig(), nil)
	defer func() { _ = rc.Shutdown(context.Background()) }()
	testutil.Eventually(t, 10*time.Second, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		resp, err := rc.InvokeSync(ctx, n.b.BrokerAddr(), codec.NewRequest(code.GetBrokerEpochCache, nil, nil))
		if err != nil || resp.Code != code.Success {
			return fmt.Errorf("%s: GET_BROKER_EPOCH_CACHE %v %v", n.name, resp, err)
		}
		c, err := body.DecodeEpochEntryCache(resp.Body)
		if err != nil {
			return err
		}
		// A replica's epoch file fills as it copies data: empty in a
		// group that has none yet.
		okList := len(c.EpochList) == 1 && c.EpochList[0] == body.EpochEntry{Epoch: 1, StartOffset: 0, EndOffset: math.MaxInt64} ||
			wantID != 0 && len(c.EpochList) == 0
		if c.BrokerID != wantID || c.BrokerName != n.cfg.BrokerName || !okList {
			return fmt.Errorf("%s: epoch cache %+v, want brokerId %d and [{1 0 MaxInt64}]", n.name, c, wantID)
		}
		return nil
	})
}

// TestFailoverReadmeConfsAgree: the README's conf/controller files load
// with no warning into the name server's and controller's settings (as
// mqnamesrv binds them) and the broker's, the three name servers listen on
// distinct ports, each embeds controller n<i> of one three-peer group, and
// every broker's controllerAddr lists exactly those peers and its
// namesrvAddr exactly those name servers.
func TestFailoverReadmeConfsAgree(t *testing.T) {
	var peers, nsAddrs []string
	for i := range 3 {
		m := foParseConf(t, filepath.Join("..", "conf", "controller", "namesrv-n"+strconv.Itoa(i)+".conf"))
		ns, srv, cc := namesrv.NewNamesrvConfig(), namesrv.NewNettyServerConfig(), controller.NewConfig()
		if w := props.Bind(m, ns, srv, cc); len(w) != 0 {
			t.Fatalf("namesrv-n%d: warnings %v", i, w)
		}
		if !ns.EnableControllerInNamesrv || cc.ControllerDLegerSelfId != "n"+strconv.Itoa(i) || cc.ControllerDLegerGroup != "group1" {
			t.Fatalf("namesrv-n%d: embedded %v self %q group %q", i, ns.EnableControllerInNamesrv, cc.ControllerDLegerSelfId, cc.ControllerDLegerGroup)
		}
		var addrs []string
		for _, p := range strings.Split(cc.ControllerDLegerPeers, ";") {
			_, a, _ := strings.Cut(p, "-")
			addrs = append(addrs, a)
		}
		if peers == nil {
			peers = addrs
		} else if !slices.Equal(peers, addrs) {
			t.Fatalf("namesrv-n%d: peers %v, others %v", i, addrs, peers)
		}
		nsAddrs = append(nsAddrs, "127.0.0.1:"+strconv.Itoa(srv.ListenPort))
	}
	if len(peers) != 3 || len(slices.Compact(slices.Sorted(slices.Values(nsAddrs)))) != 3 {
		t.Fatalf("peers %v, name servers %v", peers, nsAddrs)
	}
	for i := range 3 {
		m := foParseConf(t, filepath.Join("..", "conf", "controller", "broker-n"+strconv.Itoa(i)+".conf"))
		c := broker.NewStartupConfigs()
		if w := props.Bind(m, c.Targets()...); len(w) != 0 {
			t.Fatalf("broker-n%d: warnings %v", i, w)
		}
		if !slices.Equal(c.Broker.ControllerAddrList(), peers) || !slices.Equal(c.Broker.NamesrvAddrList(), nsAddrs) {
			t.Fatalf("broker-n%d: controllerAddr %v namesrvAddr %v, want %v and %v", i,
				c.Broker.ControllerAddrList(), c.Broker.NamesrvAddrList(), peers, nsAddrs)
		}
	}
}

func foParseConf(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := props.ParseString(string(data))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestFailoverConfiguredRoleIsOnlyAHint: brokers whose files still say
// ASYNC_MASTER / brokerId 0 get their roles from the controller all the
// same: one master, registered as brokerId 0, and a slave that takes the
// master's topics through its periodic slave sync.
func TestFailoverConfiguredRoleIsOnlyAHint(t *testing.T) {
	e := newFailoverEnv(t, 1, 2, nil, func(c *broker.BrokerConfig, s *store.MessageStoreConfig) {
		c.BrokerID = 0
		s.BrokerRole = store.AsyncMaster
	})
	m := e.master(30 * time.Second)
	e.waitRoute(m, 30*time.Second)
	tc := body.NewTopicConfig(e.topic)
	tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm = 4, 4, 6
	m.b.Topics().UpdateTopicConfig(tc)
	for _, n := range e.nodes {
		if n == m {
			continue
		}
		if !n.b.IsSlave() {
			t.Fatalf("%s is not a slave", n.name)
		}
		testutil.Eventually(t, 30*time.Second, func() error { // slave sync: first after 3 s, then every 10 s
			if n.b.Topics().SelectTopicConfig(e.topic) == nil {
				return fmt.Errorf("%s has not synced topic %s from the master", n.name, e.topic)
			}
			return nil
		})
	}
}

// TestFailoverNewMasterDeliversDelayedMessages: a delayed message accepted
// by the old master (delay level 2, 5 s) and not yet due when it dies is
// delivered by the new master, which started the schedule service when it
// took the role.
func TestFailoverNewMasterDeliversDelayedMessages(t *testing.T) {
	e := newFailoverEnv(t, 1, 2, nil)
	m := e.master(30 * time.Second)
	testutil.Eventually(t, 30*time.Second, func() error {
		if _, _, set := e.syncStateSet(); len(set) != 2 {
			return fmt.Errorf("syncStateSet %v, want both", set)
		}
		return nil
	})
	e.createTopic(m)
	p := e.producer(0)
	msg := primitive.NewMessage(e.topic, []byte("delayed-across-failover"))
	msg.WithDelayTimeLevel(2)
	if r, err := p.SendSync(context.Background(), msg); err != nil || r.Status != primitive.SendOK {
		t.Fatalf("send delayed: %v %v", r, err)
	}
	e.kill(m)
	nm := e.master(30 * time.Second)
	testutil.Eventually(t, 30*time.Second, func() error {
		if !foBodies(nm.b.Store(), e.topic)["delayed-across-failover"] {
			return fmt.Errorf("delayed message not delivered on the new master %s", nm.name)
		}
		return nil
	})
}

// foStartConsumer starts an unmodified Go push consumer of e.topic from the
// first offset, recording every body in r.
func foStartConsumer(t *testing.T, e *foEnv, group string, r *received) {
	t.Helper()
	c, err := consumer.NewPushConsumer(
		consumer.WithNsResolver(primitive.NewPassthroughResolver([]string{e.nsAddr})),
		consumer.WithGroupName(group),
		consumer.WithInstance(uniqueName("foc")),
		consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset),
	)
	if err != nil {
		t.Fatal(err)
	}
	err = c.Subscribe(e.topic, consumer.MessageSelector{Type: consumer.TAG, Expression: "*"},
		func(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
			r.add(msgs...)
			return consumer.ConsumeSuccess, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	t.Cleanup(func() { _ = testutil.ShutdownSettled(started, c.Shutdown) })
}
