// Package ha is master/slave replication over the HA port, byte-compatible
// with Apache RocketMQ 4.9.8's default HA (store/ha: HAService,
// HAConnection, HAService.HAClient, GroupTransferService): a Java slave can
// replicate from a Go master and a Go slave from a Java master.
//
// Wire format (plain TCP, no handshake, big-endian):
//
//	slave -> master, on connect, after each batch applied, every
//	haSendHeartbeatInterval (5 s):
//	  +----------------------+
//	  | maxPhyOffset  int64  |   8 bytes; only the last complete one of a read counts
//	  +----------------------+
//	master -> slave, repeated:
//	  +----------------------+------------------+----------------------+
//	  | phyOffset     int64  | bodySize  int32  | CommitLog bytes ...  |
//	  +----------------------+------------------+----------------------+
//	  body = raw CommitLog bytes at phyOffset, <= haTransferBatchSize (32 KiB),
//	  never across a CommitLog file end, may cut a record; bodySize 0 is a
//	  heartbeat (idle for haSendHeartbeatInterval) at the transfer position.
//
// Master side (Service + connection): the first report fixes where the
// transfer starts (0 -> start of the master's last CommitLog file, as Java
// does); later reports are acknowledgements that raise push2SlaveMaxOffset
// and complete SYNC_MASTER waits. A connection that reads nothing for
// haHousekeepingInterval (20 s) is closed.
//
// Slave side (the client part of Service): it connects to the address given
// by UpdateMasterAddress (registration answer's haServerAddr, or
// haMasterAddress), reports, appends every body at its own physical offset
// (store.AppendToCommitLog) and reports the new max offset once per read.
// A header whose offset differs from the local max closes the connection
// (Java), except the first header of a connection below the local max: that
// is the master saying the local tail diverged, and the slave truncates
// there (store.TruncateCommitLog). It reconnects after 5 s, or at once when
// the master address changes.
//
// SYNC_MASTER (GroupTransferService): Service implements
// commitlog.ReplicaWaiter. IsSlaveOK(end) = a slave is connected and
// end - push2SlaveMaxOffset < haSlaveFallbehindMax (else
// SLAVE_NOT_AVAILABLE); WaitReplicated completes when push2SlaveMaxOffset
// >= end, or fails after syncFlushTimeout (FLUSH_SLAVE_TIMEOUT). The
// connection's reader only raises push2SlaveMaxOffset and signals; the
// group service's goroutine answers the covered waits, so the next report
// is read while those answers are encoded and written.
//
// Invariants:
//   - push2SlaveMaxOffset never exceeds the master's own max physical offset:
//     a report beyond it is never an acknowledgement (apache/rocketmq #1155,
//     #3015 — Java counts a slave's first report even when its tail is ahead
//     of a restarted master, acknowledging sends no slave holds). As a first
//     report it makes the master start at its own max (our slave truncates);
//     later it closes the connection, as Java does.
//   - Each pending wait's done is called exactly once, outside any lock;
//     Shutdown fails the pending ones.
//   - Every goroutine (accept, one reader + one writer per slave, the wait
//     loops, the client) is started through goFunc and waited for by
//     Shutdown.
//
// Offsets across failover (apache/rocketmq #1094; implemented in package
// broker, slave_sync.go, on top of offset.Manager's reset marks): while the
// master is down, consumers commit offsets on the slave. Java's slave sync
// then copies the restarted master's older offsets over them, so the group
// re-consumes. Our rule, applied by the slave every sync (10 s, and right
// after its HA connection to a master is established):
//
//  1. fetch the master's offsets with their reset marks (private request
//     HA_GET_CONSUMER_OFFSET_MARKS; a Java master answers
//     REQUEST_CODE_NOT_SUPPORTED and the slave falls back to
//     GET_ALL_CONSUMER_OFFSET with Java's overwrite semantics);
//  2. every local entry larger than the master's, unless the master's entry
//     carries a newer explicit reset, is pushed to the master
//     (HA_MERGE_CONSUMER_OFFSET), where it is merged "larger wins unless the
//     master's own entry has a newer reset" — never lowering an offset;
//  3. the master's table is merged into the slave's: a newer reset
//     (RESET_OFFSET / INVOKE_BROKER_TO_RESET_OFFSET, or a commit below the
//     stored offset) wins, otherwise the larger offset wins.
//
// So an explicit reset on the master still reaches the slave, and offsets
// committed on the slave survive the master's return.
//
// Controller mode (controller.go, syncstateset.go, autoswitch_*.go; 5.x
// AutoSwitchHAService): ChangeToMaster / ChangeToSlave switch the role at
// runtime, the HA port and client speak 5.x's auto-switch protocol (a
// handshake carrying the master's epoch history, then transfers labelled
// with their epoch), a replica truncates to the last offset it shares with
// the master under the same epoch, and the master tracks the SyncStateSet
// and the allAckInSyncStateSet rule. See docs/ha.md.
//
// Known limitations: without controller mode, divergence is detected by
// offsets only. A slave whose bytes differ from the master's below the
// master's max offset (the master lost an unflushed tail, restarted and
// wrote past the slave's offset before the slave reconnected) is not
// detected; Java 4.9 has the same blind spot (controller mode's epochs fix
// it). Stale
// index entries of a truncated tail stay in the index (store behaviour).
// The slave's HA port is bound too (as in Java) but nothing uses it.
//
// Usage:
//
//	h, _ := ha.New(st, ha.ConfigFromStore(storeCfg, ""), lg)
//	_ = h.Start()                       // listens on haListenPort
//	h.UpdateMasterAddress("10.0.0.1:10912") // slave: replicate from there
//	defer h.Shutdown(ctx)
//
// Controller mode (the broker drives it from the controller's answers):
//
//	_ = h.EnableControllerMode()              // opens epochFileCheckpoint
//	h.SetLocalBrokerID(id)
//	h.SetOnSyncStateSetChanged(alterSyncStateSet) // expand / disconnect proposals
//	start, err := h.ChangeToMaster(epoch)      // or:
//	err = h.ChangeToSlave("", epoch, id)       // then UpdateMasterAddress(haAddr)
//	h.SetSyncStateSet(acceptedIDs)             // the controller's answer
//	if p, changed := h.MaybeShrinkSyncStateSet(); changed { alterSyncStateSet(p) }
package ha
