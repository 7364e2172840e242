package store

import (
	"path/filepath"
	"testing"
)

func TestStoreDiskUsageRatios(t *testing.T) {
	root := t.TempDir()
	used := map[string]float64{
		"/data/a": 0.7, "/data/b": 0.3,
		filepath.Join(root, "commitlog"): 0.55, filepath.Join(root, "consumequeue"): 0.25, filepath.Join(root, "index"): 0.125,
	}
	probe := func(p string) float64 {
		if v, ok := used[p]; ok {
			return v
		}
		return -1
	}
	for _, tc := range []struct {
		commitLogPath string
		wantCL        float64
	}{
		{"", 0.55},                 // <root>/commitlog
		{"/data/a;/data/b", 0.3},   // lowest over the paths
		{" /data/a;/data/b;", 0.3}, // trimmed, trailing empty part dropped
		{"/data/a;;/data/b", -1},   // an empty middle part is probed (and unknown)
		{"/data/missing", -1},      // unknown
	} {
		cfg := NewMessageStoreConfig()
		cfg.StorePathRootDir, cfg.StorePathCommitLog = root, tc.commitLogPath
		s := &DefaultMessageStore{cfg: cfg, opts: options{diskUsage: probe}}
		cl, cq, idx := s.DiskUsageRatios()
		if cl != tc.wantCL || cq != 0.25 || idx != 0.125 {
			t.Errorf("storePathCommitLog %q: CL %v CQ %v INDEX %v, want %v 0.25 0.125", tc.commitLogPath, cl, cq, idx, tc.wantCL)
		}
	}
}
