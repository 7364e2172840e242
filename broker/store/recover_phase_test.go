package store

import (
	"slices"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// TestStoreRecoveryLogsPhases: Open and Start log each startup step once,
// in order, with its duration, after a crash as after a clean shutdown.
func TestStoreRecoveryLogsPhases(t *testing.T) {
	cfg := smallConfig(t)
	s := startStore(t, cfg)
	writeQueues(t, s, 50)
	waitDispatched(t, s)
	shutdownStore(t, s)
	want := []string{"checkpoint", "commitlog load", "consumequeue load", "index load", "consumequeue recover",
		"commitlog recover", "logic queues settled", "dispatch catch-up"}
	for _, crashed := range []bool{false, true} {
		if crashed {
			createAbortFile(t, cfg)
			writeCheckpoint(t, cfg, 0, 0, 0)
		}
		core, logs := observer.New(zap.InfoLevel)
		s, err := Open(cfg, zap.New(core))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Start(); err != nil {
			t.Fatal(err)
		}
		shutdownStore(t, s)
		var got []string
		for _, e := range logs.FilterMessage("store recovery phase").All() {
			m := e.ContextMap()
			if _, ok := m["took"].(time.Duration); !ok {
				t.Errorf("phase %v without a duration: %v", m["phase"], m)
			}
			got = append(got, m["phase"].(string))
			if m["phase"] == "commitlog recover" && m["lastExitOK"] != !crashed {
				t.Errorf("commitlog recover logged lastExitOK=%v after crash=%v", m["lastExitOK"], crashed)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("crash=%v: phases %q, want %q", crashed, got, want)
		}
		if logs.FilterMessage("store loaded").Len() != 1 {
			t.Errorf("crash=%v: no total", crashed)
		}
	}
}
