package commitlog

// SetSyncMaster switches the SYNC_MASTER replica wait on or off at runtime
// (controller mode changes the broker role without a restart). It starts
// as Config.SyncMaster. Puts appended before the switch keep the decision
// taken at their append.
func (c *CommitLog) SetSyncMaster(on bool) { c.syncMaster.Store(on) }

// isSyncMaster reports whether waiting puts wait for a replica.
func (c *CommitLog) isSyncMaster() bool { return c.syncMaster.Load() }
