//go:build !race

package broker_test

import (
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/testutil"
)

// TestNoRaceSequentialTopicCreatesAreLinear: one caller creating 5,000
// topics one at a time (as mqadmin does) is answered in well under 2 s
// per 5,000 (the target; the bound allows twice that for a loaded
// machine): each answer waits for one journal append, not for a rewrite of
// a topics.json that grows with every topic (quadratic: about 30 s).
func TestNoRaceSequentialTopicCreatesAreLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 5,000 topics")
	}
	cfg, scfg := testutil.NewBrokerConfigs(t, "")
	b := startQuietBroker(t, cfg, scfg)
	c := newClientTB(t)
	start := time.Now()
	createTopics(t, c, b.Addr().String(), "Linear", 5000, 1)
	took := time.Since(start)
	t.Logf("5,000 sequential creates took %v", took)
	if took > 4*time.Second {
		t.Fatalf("5,000 sequential creates took %v, want < 4 s", took)
	}
}
