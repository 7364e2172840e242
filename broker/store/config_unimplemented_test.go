package store

import "testing"

func TestStoreConfigUnimplementedInSyncReplicas(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want int
	}{{1, 0}, {2, 0}, {3, 1}} {
		c := NewMessageStoreConfig()
		c.InSyncReplicas = tc.n
		if got := len(c.Unimplemented()); got != tc.want {
			t.Errorf("inSyncReplicas=%d: %d warnings, want %d", tc.n, got, tc.want)
		}
	}
}
