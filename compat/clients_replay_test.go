package compat

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// Replay of the C++ (cpp-json) and ali-ons (node-json) sessions: every
// request those clients (and mqadmin) sent is written, byte for byte, on
// its own connection to an in-process name server and broker configured as
// the recording's (autoCreateTopicEnable, enablePropertyFilter), in the
// recorded order. Our answers must match Apache's in response code,
// extFields key set, remark, and the values that follow from the replayed
// requests alone (queue ids and offsets), and the bodies of route,
// consumer-list and lock answers byte for byte (the recorded broker address
// replaced by ours). Message ids, stored messages and timestamps differ by
// construction and are not compared.

// replayValueKeys are answer extFields whose values the replay reproduces.
var replayValueKeys = []string{"queueId", "queueOffset", "nextBeginOffset", "minOffset", "maxOffset",
	"suggestWhichBrokerId", "offset"}

// replayWait bounds the wait for one answer. Long-polled pulls whose
// answer Apache gave later are awaited after the rest of the session.
const replayWait = 20 * time.Second

type replayExchange struct {
	req, resp  *clientFrame
	rc         *rawConn
	opaque     int32
	reqCode    int32
	brokerAddr string // ours, in place of the recorded one in route bodies
}

// recordedBrokerAddr is the broker's address in the clients recordings.
const recordedBrokerAddr = "127.0.0.1:27911"

// replayBodyCodes are the requests whose SUCCESS answer body the replay
// reproduces exactly.
var replayBodyCodes = map[int32]bool{code.GetRouteinfoByTopic: true, code.GetConsumerListByGroup: true, code.LockBatchMq: true}

func TestCompatClientsGoldenReplay(t *testing.T) {
	_, frames, byFile := loadClientFrames(t)
	for _, session := range []string{"cpp-json", "node-json"} {
		t.Run(session, func(t *testing.T) {
			t.Parallel()
			replaySession(t, session, frames, byFile)
		})
	}
}

func replaySession(t *testing.T, session string, frames []clientFrame, byFile map[string]*clientFrame) {
	ns := testutil.StartNamesrv(t)
	b := testutil.StartBroker(t, ns.Addr().String(), func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) {
		c.EnablePropertyFilter = true
	})
	servers := map[string]string{"namesrv": ns.Addr().String(), "broker": b.Addr().String()}
	waitRegistered(t, servers["namesrv"])

	var reqs []*clientFrame
	for i := range frames {
		fr := &frames[i]
		if fr.row["session"] == session && fr.row["type"] != "response" &&
			(fr.row["direction"] == "client->broker" || fr.row["direction"] == "client->namesrv") {
			reqs = append(reqs, fr)
		}
	}
	if len(reqs) == 0 {
		t.Fatalf("session %s has no client request", session)
	}
	conns := map[string]*rawConn{}
	var later []replayExchange
	compared := 0
	for i, fr := range reqs {
		server := "broker"
		if fr.row["direction"] == "client->namesrv" {
			server = "namesrv"
		}
		rc := conns[fr.row["conn"]]
		if rc == nil {
			rc = dialRaw(t, servers[server])
			conns[fr.row["conn"]] = rc
		}
		cmd, err := codec.Decode(fr.bytes)
		if err != nil {
			t.Fatalf("%s: %v", fr.row["file"], err)
		}
		if server == "broker" {
			// A send is answered once the CommitLog has it and the queues
			// follow asynchronously (in Apache too); the recorded clients
			// asked after that had happened.
			waitDispatchedAll(t, b)
		}
		rc.forget(cmd.Opaque)
		rc.write(t, fr.bytes)
		resp := byFile[fr.row["pair_file"]]
		if resp == nil || fr.row["type"] == "request-oneway" {
			continue // Apache's answer was not captured (a pull left suspended)
		}
		ex := replayExchange{req: fr, resp: resp, rc: rc, opaque: cmd.Opaque, reqCode: cmd.Code, brokerAddr: servers["broker"]}
		if i+1 < len(reqs) && seqOf(t, resp) > seqOf(t, reqs[i+1]) {
			later = append(later, ex) // Apache answered after the client's next request
			continue
		}
		compareReplay(t, ex)
		compared++
	}
	for _, ex := range later {
		compareReplay(t, ex)
		compared++
	}
	t.Logf("%s: %d requests replayed, %d answers compared (%d awaited at the end)", session, len(reqs), compared, len(later))
}

func seqOf(t *testing.T, fr *clientFrame) int {
	t.Helper()
	n, err := strconv.Atoi(fr.row["seq"])
	if err != nil {
		t.Fatalf("%s: seq %q", fr.row["file"], fr.row["seq"])
	}
	return n
}

// waitRegistered polls the name server until TBW102 (every broker's
// default topic) has a route, i.e. our broker has registered.
func waitRegistered(t *testing.T, nsAddr string) {
	t.Helper()
	rc := dialRaw(t, nsAddr)
	opaque := int32(0)
	testutil.Eventually(t, 15*time.Second, func() error {
		opaque++
		req := codec.NewRequest(code.GetRouteinfoByTopic, map[string]string{"topic": "TBW102"}, nil)
		req.Opaque = opaque
		frame, err := codec.Encode(req)
		if err != nil {
			return err
		}
		rc.write(t, frame)
		resp, err := rc.answer(opaque, callTimeout)
		if err != nil {
			return err
		}
		if resp.Code != code.Success {
			return fmt.Errorf("TBW102 route: code %d %q", resp.Code, resp.Remark)
		}
		return nil
	})
}

// compareReplay waits for our answer to ex and compares it with Apache's.
// A route lookup Apache answered SUCCESS may find our broker's registration
// of a just auto-created topic still on its way: it is asked again, as the
// client's periodic route refresh would, until the answers agree.
func compareReplay(t *testing.T, ex replayExchange) {
	t.Helper()
	name := filepath.Base(ex.req.row["file"])
	want, err := codec.Decode(ex.resp.bytes)
	if err != nil {
		t.Fatalf("%s: recorded answer: %v", name, err)
	}
	got, err := ex.rc.answer(ex.opaque, replayWait)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	if ex.reqCode == code.GetRouteinfoByTopic && want.Code == code.Success && got.Code != code.Success {
		testutil.Eventually(t, 15*time.Second, func() error {
			ex.rc.forget(ex.opaque)
			ex.rc.write(t, ex.req.bytes)
			if got, err = ex.rc.answer(ex.opaque, callTimeout); err != nil {
				return err
			}
			if got.Code != code.Success {
				return fmt.Errorf("%s: code %d %q", name, got.Code, got.Remark)
			}
			return nil
		})
	}
	if got.Code != want.Code {
		t.Errorf("%s: code %s %q, Apache %s %q", name, code.ResponseName(got.Code), got.Remark,
			code.ResponseName(want.Code), want.Remark)
		return
	}
	if got.Remark != want.Remark {
		t.Errorf("%s: remark %q, Apache %q", name, got.Remark, want.Remark)
	}
	if g, w := sortedKeys(got.ExtFields), sortedKeys(want.ExtFields); !slices.Equal(g, w) {
		t.Errorf("%s: extFields keys %v, Apache %v (%v vs %v)", name, g, w, got.ExtFields, want.ExtFields)
	}
	for _, k := range replayValueKeys {
		if w, ok := want.ExtFields[k]; ok && got.ExtFields[k] != w {
			t.Errorf("%s: %s=%q, Apache %q", name, k, got.ExtFields[k], w)
		}
	}
	if replayBodyCodes[ex.reqCode] && want.Code == code.Success {
		wantBody := strings.ReplaceAll(string(want.Body), recordedBrokerAddr, ex.brokerAddr)
		if string(got.Body) != wantBody {
			t.Errorf("%s: body\n got %s\nwant %s", name, got.Body, wantBody)
		}
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
