package broker_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/pop"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting/code"
)

// rewrittenCks lists the rewritten checkpoints (rePutTimes set) in revive
// queue 0 of the default cluster's revive log.
func rewrittenCks(t *testing.T, e *consumeEnv) []pop.Checkpoint {
	t.Helper()
	rt := pop.ReviveTopic("DefaultCluster")
	st := e.b.Store()
	var out []pop.Checkpoint
	for off := int64(0); off < st.MaxOffsetInQueue(rt, 0); off++ {
		res := st.GetMessage("probe", rt, 0, off, 1, nil)
		if res == nil || len(res.Messages) != 1 {
			t.Fatalf("no record at %s/0/%d", rt, off)
		}
		m, err := message.DecodeRecord(res.Messages[0], true)
		if err != nil {
			t.Fatal(err)
		}
		if message.PropertyValue(m.PropertiesString, message.PropertyTags) != pop.CkTag {
			continue
		}
		var ck pop.Checkpoint
		if err := json.Unmarshal(m.Body, &ck); err != nil {
			t.Fatal(err)
		}
		if ck.RePutTimes != nil {
			out = append(out, ck)
		}
	}
	return out
}

// TestBrokerPopReviveRewritesUnputtableCheckpoint: a message that can never
// be re-put (its properties plus 1ST_POP_TIME exceed 32767 bytes) does not
// hold its revive queue's progress: its checkpoint is written back to the
// revive log for that message alone, 10 s later and counted (5.x's
// rePutCK), the later checkpoint of the same revive queue is revived, and
// after a restart nothing already revived comes back again.
func TestBrokerPopReviveRewritesUnputtableCheckpoint(t *testing.T) {
	t.Parallel()
	oneQueue := func(cfg *broker.BrokerConfig, _ *store.MessageStoreConfig) { cfg.ReviveQueueNum = 1 }
	cfg, scfg := testutil.NewBrokerConfigs(t, "", fastRevive, oneQueue)
	b := testutil.StartBrokerWith(t, cfg, scfg)
	e := envFor(t, b)
	e.expect(e.call(createTopicReq("PopRvW", 1)), code.Success, "")
	e.send("PopRvW", 0, map[string]string{"pad": "x"}, "probe")
	e.waitDispatched("PopRvW", 0, 1)
	overhead := storedPropsLen(t, e, "PopRvW", 0) - 1
	pad := strings.Repeat("x", message.MaxPropertiesLength-5-overhead)
	e.send("PopRvW", 0, nil, "m0")
	e.send("PopRvW", 0, map[string]string{"pad": pad}, "big")
	e.send("PopRvW", 0, nil, "m2")
	e.waitDispatched("PopRvW", 0, 4)
	_, _, probe := e.pop("rvw", "PopRvW", 0, 1, 60_000, 0)
	e.expect(e.ack("rvw", probe[0]), code.Success, "")
	// Two checkpoints in revive queue 0: {m0, big}, then {m2}.
	if _, _, got := e.pop("rvw", "PopRvW", 0, 2, 100, 0); len(got) != 2 {
		t.Fatalf("first pop got %d", len(got))
	}
	if _, _, got := e.pop("rvw", "PopRvW", 0, 1, 100, 0); len(got) != 1 || string(got[0].m.Body) != "m2" {
		t.Fatalf("second pop got %v", popBodies(got))
	}
	const retryTopic = "%RETRY%rvw_PopRvW"
	testutil.Eventually(t, 10*time.Second, func() error {
		if got := retried(t, e, retryTopic); len(got) < 2 {
			return fmt.Errorf("re-put so far %v", got)
		}
		if n := len(rewrittenCks(t, e)); n == 0 {
			return fmt.Errorf("no rewritten checkpoint")
		}
		return nil
	})
	e.reviveSettled()
	cks := rewrittenCks(t, e)
	if len(cks) != 1 || cks[0].StartOffset != 2 || !slices.Equal(cks[0].QueueOffsetDiff, []int32{0}) ||
		*cks[0].RePutTimes != "1" || cks[0].InvisibleTime != 100+10_000 || cks[0].CID != "rvw" {
		t.Fatalf("rewritten checkpoints %+v", cks)
	}
	want := "m0,m2"
	got := retried(t, e, retryTopic)
	slices.Sort(got)
	if strings.Join(got, ",") != want {
		t.Fatalf("retry topic holds %v, want %s", got, want)
	}
	shutdownBroker(t, b)

	// The progress moved past both checkpoints: the restarted broker
	// re-reads only the rewritten one (not due for 10 s).
	b2 := testutil.StartBrokerWith(t, cfg, scfg)
	e2 := envFor(t, b2)
	e2.reviveSettled()
	got = retried(t, e2, retryTopic)
	slices.Sort(got)
	if strings.Join(got, ",") != want {
		t.Fatalf("after restart the retry topic holds %v, want %s (each once)", got, want)
	}
	for _, ck := range rewrittenCks(t, e2) {
		if ck.StartOffset != 2 {
			t.Fatalf("after restart a checkpoint was rewritten for offset %d", ck.StartOffset)
		}
	}
}
