package compat

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// envNamesrv names an external cluster (host:port of its name server). When
// set, every behaviour test runs against that cluster instead of in-process
// servers; its brokers are assumed to run Apache's defaults with
// autoCreateTopicEnable=true (the first master found is used).
//
// The whole behaviour suite passed against Apache RocketMQ 4.9.8 (name
// server + one broker built from the rocketmq-all-4.9.8 tag with javac, see
// docs/benchmarks.md) on 2026-11-29:
//
//	RMQ_COMPAT_NAMESRV=127.0.0.1:29877 go test -run TestCompat ./compat
const envNamesrv = "RMQ_COMPAT_NAMESRV"

// callTimeout bounds one request/response exchange.
const callTimeout = 10 * time.Second

// runID makes topic and group names unique to this test process, so a shared
// external cluster never sees the same names twice.
var (
	runID   = strconv.FormatInt(time.Now().UnixNano()%1e12, 36)
	nameSeq atomic.Int64
)

// target is the cluster a behaviour test talks to: its name server and one
// master broker (brokerId 0) found through the name server.
type target struct {
	NamesrvAddr string
	BrokerAddr  string // master's main port, as registered with the name server
	BrokerName  string
	ClusterName string
	External    bool
	client      *remoting.Client
}

// newTarget returns the external cluster named by RMQ_COMPAT_NAMESRV or, by
// default, a fresh in-process name server and broker (Apache defaults:
// autoCreateTopicEnable=true) that stop when the test ends.
func newTarget(t *testing.T) *target {
	t.Helper()
	tg := &target{client: remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t).Named("compat.client"))}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = tg.client.Shutdown(ctx)
	})
	if addr := os.Getenv(envNamesrv); addr != "" {
		tg.NamesrvAddr, tg.External = addr, true
	} else {
		ns := testutil.StartNamesrv(t)
		tg.NamesrvAddr = ns.Addr().String()
		testutil.StartBroker(t, tg.NamesrvAddr)
	}
	tg.findBroker(t)
	return tg
}

// findBroker learns the master broker from GET_BROKER_CLUSTER_INFO, polling
// until one has registered.
func (tg *target) findBroker(t *testing.T) {
	t.Helper()
	testutil.Eventually(t, 15*time.Second, func() error {
		resp, err := tg.call(tg.NamesrvAddr, codec.NewRequest(code.GetBrokerClusterInfo, nil, nil))
		if err != nil {
			return err
		}
		if resp.Code != code.Success {
			return fmt.Errorf("GET_BROKER_CLUSTER_INFO: code %d %q", resp.Code, resp.Remark)
		}
		ci, err := body.DecodeClusterInfo(resp.Body)
		if err != nil {
			return err
		}
		for cluster, names := range ci.ClusterAddrTable {
			for _, name := range names {
				if bd := ci.BrokerAddrTable[name]; bd != nil && bd.BrokerAddrs[0] != "" {
					tg.ClusterName, tg.BrokerName, tg.BrokerAddr = cluster, name, bd.BrokerAddrs[0]
					return nil
				}
			}
		}
		return fmt.Errorf("no master registered yet: %s", resp.Body)
	})
}

// call sends req to addr and waits for the reply.
func (tg *target) call(addr string, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	return tg.client.InvokeSync(ctx, addr, req)
}

// mustCall is call that fails the test on a transport error.
func (tg *target) mustCall(t *testing.T, addr string, req *codec.RemotingCommand) *codec.RemotingCommand {
	t.Helper()
	resp, err := tg.call(addr, req)
	if err != nil {
		t.Fatalf("%s to %s: %v", code.RequestName(req.Code), addr, err)
	}
	return resp
}

// localAddrTo is the client-side "ip:port" of the connection to addr, as
// the server sees it as the remote address.
func (tg *target) localAddrTo(t *testing.T, addr string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	ch, err := tg.client.Channel(ctx, addr)
	if err != nil {
		t.Fatalf("connect %s: %v", addr, err)
	}
	return ch.LocalAddr()
}

// uniq returns a name unique to this run: prefix_<runID>_<n>.
func uniq(prefix string) string {
	return prefix + "_" + runID + "_" + strconv.FormatInt(nameSeq.Add(1), 10)
}

// request builds a request of the given serialization type.
func request(c int32, ext map[string]string, data []byte, ser codec.SerializeType) *codec.RemotingCommand {
	req := codec.NewRequest(c, ext, data)
	req.SerializeType = ser
	return req
}

// serTypes are the two header serializations a client may use.
var serTypes = []codec.SerializeType{codec.JSON, codec.RocketMQ}

func serName(s codec.SerializeType) string {
	if s == codec.RocketMQ {
		return "ROCKETMQ"
	}
	return "JSON"
}

// forEachSer runs f once per header serialization type.
func forEachSer(t *testing.T, f func(t *testing.T, ser codec.SerializeType)) {
	t.Helper()
	for _, ser := range serTypes {
		t.Run(serName(ser), func(t *testing.T) { f(t, ser) })
	}
}
