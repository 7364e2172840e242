package broker_test

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
)

func envFor(t *testing.T, b *broker.Broker) *consumeEnv {
	c := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t).Named("client"))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = c.Shutdown(ctx)
	})
	return &consumeEnv{t: t, b: b, c: c, addr: b.Addr().String()}
}

// TestBrokerPopRestartRevivesUnackedOnly: messages popped and not acked
// when the broker stops come back after their invisible time on the
// restarted broker (checkpoints are in the revive log, its progress in the
// consumer offsets); acked ones never come back.
func TestBrokerPopRestartRevivesUnackedOnly(t *testing.T) {
	t.Parallel()
	cfg, scfg := testutil.NewBrokerConfigs(t, "", fastRevive)
	b := testutil.StartBrokerWith(t, cfg, scfg)
	e := envFor(t, b)
	for i := range 6 {
		e.send("PopRs", 0, nil, "m"+strconv.Itoa(i))
	}
	e.waitDispatched("PopRs", 0, 6)
	// Half acked; once the revive service has read the checkpoint and the
	// acks (and committed its progress), the broker stops, before the
	// invisible time ends.
	_, _, got := e.pop("sg", "PopRs", 0, 6, 2*ackSlack(), 0)
	if len(got) != 6 {
		t.Fatalf("popped %d", len(got))
	}
	for i, p := range got {
		if i%2 == 0 {
			e.expect(e.ack("sg", p), code.Success, "")
		}
	}
	testutil.Eventually(t, 10*time.Second, func() error {
		if !b.PopReviveCaughtUp() {
			return fmt.Errorf("revive service behind")
		}
		return nil
	})
	shutdownBroker(t, b)

	b2 := testutil.StartBrokerWith(t, cfg, scfg)
	e2 := envFor(t, b2)
	seen := map[string]int32{}
	testutil.Eventually(t, 15*time.Second, func() error {
		_, _, more := e2.pop("sg", "PopRs", -1, 32, 60_000, 0)
		for _, p := range more {
			seen[string(p.m.Body)] = p.m.ReconsumeTimes
			e2.expect(e2.ack("sg", p), code.Success, "")
		}
		if len(seen) < 3 {
			return fmt.Errorf("back after restart: %v", seen)
		}
		return nil
	})
	e2.reviveSettled()
	_, _, more := e2.pop("sg", "PopRs", -1, 32, 60_000, 0)
	for _, p := range more {
		seen[string(p.m.Body)] = p.m.ReconsumeTimes
	}
	var keys []string
	for k, rt := range seen {
		keys = append(keys, k+"/"+strconv.Itoa(int(rt)))
	}
	sort.Strings(keys)
	if got := strings.Join(keys, ","); got != "m1/1,m3/1,m5/1" {
		t.Fatalf("after restart came back %s, want m1/1,m3/1,m5/1", got)
	}
}

// TestBrokerPopOrderlyBlockSurvivesRestart: the FIFO table persists
// (config/consumerOrderInfo.json): after a restart the unacked orderly
// batch still blocks its queue, and acks made with the receipt handles
// from before the restart release it.
func TestBrokerPopOrderlyBlockSurvivesRestart(t *testing.T) {
	t.Parallel()
	cfg, scfg := testutil.NewBrokerConfigs(t, "")
	b := testutil.StartBrokerWith(t, cfg, scfg)
	e := envFor(t, b)
	for i := range 3 {
		e.send("PopFr", 0, nil, "m"+strconv.Itoa(i))
	}
	e.waitDispatched("PopFr", 0, 3)
	_, got := e.popOrder("frg", "PopFr", 2, 60_000, "a1")
	if popBodies(got) != "m0,m1" {
		t.Fatalf("orderly pop %q", popBodies(got))
	}
	shutdownBroker(t, b)

	b2 := testutil.StartBrokerWith(t, cfg, scfg)
	e2 := envFor(t, b2)
	if _, more := e2.popOrder("frg", "PopFr", 2, 60_000, "a2"); len(more) != 0 {
		t.Fatalf("after restart the blocked queue handed out %q", popBodies(more))
	}
	e2.expect(e2.ack("frg", got[0]), code.Success, "")
	e2.expect(e2.ack("frg", got[1]), code.Success, "")
	if _, more := e2.popOrder("frg", "PopFr", 2, 60_000, "a3"); popBodies(more) != "m2" {
		t.Fatalf("after the acks %q", popBodies(more))
	}
}
