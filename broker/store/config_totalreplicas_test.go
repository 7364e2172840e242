package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// TestStoreConfigTotalReplicasWarned: a totalReplicas other than the
// default is accepted (5.x's broker start-up accepts any value) and Open
// warns that it has no effect; the default warns nothing.
func TestStoreConfigTotalReplicasWarned(t *testing.T) {
	for _, tc := range []struct {
		n    int
		warn bool
	}{{1, false}, {3, true}, {0, true}} {
		cfg := NewMessageStoreConfig()
		cfg.StorePathRootDir = filepath.Join(t.TempDir(), "store")
		cfg.TotalReplicas = tc.n
		core, logs := observer.New(zap.WarnLevel)
		s, err := Open(cfg, zap.New(core))
		if err != nil {
			t.Fatalf("totalReplicas=%d: %v", tc.n, err)
		}
		if err := s.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		warned := false
		for _, e := range logs.FilterMessage("setting accepted but not implemented").All() {
			if d, _ := e.ContextMap()["detail"].(string); strings.HasPrefix(d, "totalReplicas=") {
				warned = true
			}
		}
		if warned != tc.warn {
			t.Errorf("totalReplicas=%d: warned %v, want %v", tc.n, warned, tc.warn)
		}
	}
}
