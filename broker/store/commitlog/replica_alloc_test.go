package commitlog

import (
	"testing"
	"time"
)

// inlineReplica acknowledges every wait at once, on the caller's goroutine,
// and allocates nothing itself.
type inlineReplica struct{}

func (inlineReplica) IsSlaveOK(int64) bool                                     { return true }
func (inlineReplica) WaitReplicated(_ int64, _ time.Duration, done func(bool)) { done(true) }

// TestCommitLogSyncMasterPutAllocs: waiting for the replica costs a
// blocking put no allocation and a callback put only its pendingPut and
// the completion handed to the HA service (one each per SYNC_MASTER send).
func TestCommitLogSyncMasterPutAllocs(t *testing.T) {
	allocs := func(syncMaster, async bool) float64 {
		cfg := testConfig(t.TempDir(), 1<<20)
		cfg.SyncMaster = syncMaster
		c := openLog(t, cfg, nil)
		c.SetReplicaWaiter(inlineReplica{})
		m := newMsg("A", 0, "x", "")
		done := func(r PutMessageResult) {
			if r.Status != PutOK {
				t.Errorf("put: %v", r.Status)
			}
		}
		return testing.AllocsPerRun(200, func() {
			if async {
				c.PutMessageAsync(m, done)
			} else if r := c.PutMessage(m); r.Status != PutOK {
				t.Errorf("put: %v", r.Status)
			}
		})
	}
	if plain, sync := allocs(false, false), allocs(true, false); sync > plain {
		t.Errorf("blocking put: %.1f allocations with SYNC_MASTER, %.1f without", sync, plain)
	}
	if plain, sync := allocs(false, true), allocs(true, true); sync > plain+2 {
		t.Errorf("callback put: %.1f allocations with SYNC_MASTER, %.1f without; want at most 2 more", sync, plain)
	}
}
