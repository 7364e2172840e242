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

// TestStoreConfigUnimplementedTransientStorePool: the write buffer pool is
// warned about where 4.9.8 would use it (ASYNC_FLUSH on a master), not
// where 4.9.8 itself ignores the setting.
func TestStoreConfigUnimplementedTransientStorePool(t *testing.T) {
	for _, tc := range []struct {
		on    bool
		flush FlushDiskType
		role  BrokerRole
		want  int
	}{
		{false, AsyncFlush, AsyncMaster, 0},
		{true, AsyncFlush, AsyncMaster, 1},
		{true, AsyncFlush, SyncMaster, 1},
		{true, SyncFlush, AsyncMaster, 0},
		{true, AsyncFlush, Slave, 0},
	} {
		c := NewMessageStoreConfig()
		c.TransientStorePoolEnable, c.FlushDiskType, c.BrokerRole = tc.on, tc.flush, tc.role
		if got := len(c.Unimplemented()); got != tc.want {
			t.Errorf("enable=%v %v %v: %d warnings, want %d", tc.on, tc.flush, tc.role, got, tc.want)
		}
	}
}
