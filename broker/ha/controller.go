package ha

// Controller mode (Apache 5.x AutoSwitchHAService): the broker's role is
// decided by the controller and changes at runtime. ChangeToMaster and
// ChangeToSlave switch the HA service and the store without a restart; the
// HA port and the client then speak 5.x's auto-switch protocol
// (autoswitch_*.go): a handshake that carries the master's epoch history,
// so that a replica truncates its CommitLog to the last offset it shares
// with the new master before copying.

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/broker/store/epoch"
)

// ErrStaleEpoch is returned by ChangeToMaster / ChangeToSlave for an epoch
// below the last one in the epoch file (5.x refuses it too).
var ErrStaleEpoch = errors.New("ha: epoch older than the epoch file's last epoch")

// roleSwitchTimeout bounds how long a role change waits for the slave
// client's session to end.
const roleSwitchTimeout = 10 * time.Second

// ctlState is the controller-mode part of Service.
type ctlState struct {
	enabled atomic.Bool // the HA port and the client speak the auto-switch protocol
	master  atomic.Bool // ChangeToMaster done, no ChangeToSlave since

	// roleMu serialises role changes. It is held across their truncation
	// and epoch file writes and never taken by the data path.
	roleMu sync.Mutex
	epochs atomic.Pointer[epoch.File]

	localID atomic.Int64 // this broker's id (SetLocalBrokerID / ChangeToSlave)

	sss    syncStateSet          // SyncStateSet tracking (syncstateset.go)
	allAck *GroupTransferService // allAckInSyncStateSet waits
}

// EnableControllerMode opens the epoch file and makes the HA port and the
// client speak the auto-switch protocol from now on (connections already
// open keep theirs). ChangeToMaster and ChangeToSlave call it; the broker
// may call it at start-up in controller mode.
func (s *Service) EnableControllerMode() error {
	if s.ctl.epochs.Load() == nil {
		f, err := epoch.Open(s.st.MessageStoreConfig().EpochFilePath())
		if err != nil {
			return fmt.Errorf("ha: open epoch file: %w", err)
		}
		s.ctl.epochs.CompareAndSwap(nil, f)
	}
	if !s.ctl.enabled.Swap(true) {
		s.st.SetInSyncReplicasCheck(s.enoughInSyncReplicas)
		if d, ok := s.st.(interface{ SetOnCommitLogFilesDeleted(func(int64)) }); ok {
			d.SetOnCommitLogFilesDeleted(s.truncateEpochPrefix)
		}
		s.lg.Info("ha controller mode enabled", zap.String("epochFile", s.ctl.epochs.Load().Path()),
			zap.Int32("lastEpoch", s.ctl.epochs.Load().LastEpoch()))
	}
	return nil
}

// truncateEpochPrefix drops the epoch entries that ended before the
// CommitLog's new min offset (5.x truncateEpochFilePrefix(minOffset-1)).
func (s *Service) truncateEpochPrefix(minPhyOffset int64) {
	if err := s.ctl.epochs.Load().TruncatePrefixByOffset(minPhyOffset - 1); err != nil {
		s.lg.Error("truncate epoch file prefix failed", zap.Int64("commitLogMinOffset", minPhyOffset), zap.Error(err))
	}
}

// IsControllerMode reports whether EnableControllerMode ran.
func (s *Service) IsControllerMode() bool { return s.ctl.enabled.Load() }

// IsMaster reports whether the service acts as a controller-mode master.
func (s *Service) IsMaster() bool { return s.ctl.master.Load() }

// SetLocalBrokerID sets the broker id the controller assigned; a master
// counts it as the SyncStateSet member that needs no acknowledgement.
func (s *Service) SetLocalBrokerID(id int64) { s.ctl.localID.Store(id) }

// LocalBrokerID is the id set by SetLocalBrokerID or ChangeToSlave.
func (s *Service) LocalBrokerID() int64 { return s.ctl.localID.Load() }

// LastEpoch is the newest epoch of the epoch file, -1 when empty or
// before controller mode.
func (s *Service) LastEpoch() int32 {
	if f := s.ctl.epochs.Load(); f != nil {
		return f.LastEpoch()
	}
	return -1
}

// EpochEntries lists the epoch file (oldest first), the last entry ending
// at math.MaxInt64 (GET_BROKER_EPOCH_CACHE).
func (s *Service) EpochEntries() []epoch.Entry {
	if f := s.ctl.epochs.Load(); f != nil {
		return f.Entries()
	}
	return nil
}

// ChangeToMaster makes this broker the master of epoch (5.x
// changeToMaster): it stops replicating, drops a record left incomplete
// by the replication stream, records (epoch, maxOffset) in the epoch file
// and switches the store to SYNC_MASTER, so it takes puts; replicas that
// connected early get their handshake answer from then on. It returns the
// epoch's start offset.
// Called again while already master, it only records the new epoch
// (changeToMasterWhenLastRoleIsMaster).
func (s *Service) ChangeToMaster(epochNum int32) (startOffset int64, err error) {
	if err := s.EnableControllerMode(); err != nil {
		return 0, err
	}
	s.ctl.roleMu.Lock()
	defer s.ctl.roleMu.Unlock()
	ef := s.ctl.epochs.Load()
	if last := ef.LastEpoch(); epochNum < last {
		return 0, fmt.Errorf("%w: %d < %d", ErrStaleEpoch, epochNum, last)
	}
	var maxOff int64
	if s.ctl.master.Load() {
		maxOff = s.st.MaxPhyOffset() // already master: puts may be running, nothing to settle
	} else {
		ctx, cancel := context.WithTimeout(s.stopCtx, roleSwitchTimeout)
		err := s.stopClient(ctx)
		cancel()
		if err != nil {
			return 0, err
		}
		// Replica connections already open are kept: they wait for the
		// handshake answer until this broker is master (waitMaster).
		if maxOff, err = s.st.SettleReplicatedTail(); err != nil {
			return 0, err
		}
	}
	if err := s.recordEpoch(ef, epochNum, maxOff); err != nil {
		return 0, err
	}
	s.ctl.master.Store(true)
	s.ctl.sss.addSelf(s.ctl.localID.Load())
	s.st.SetConfirmOffset(s.computeConfirmOffset())
	s.st.CommitLog().SetReplicaWaiter(s)
	if err := s.st.SetBrokerRole(store.SyncMaster); err != nil {
		return 0, err
	}
	s.st.SetFenced(false)
	s.lg.Info("ha changed to master", zap.Int32("epoch", epochNum), zap.Int64("startOffset", maxOff))
	return maxOff, nil
}

// recordEpoch appends (epochNum, start) after dropping the entries that
// hold no data (start at or after start) and those of epochNum or newer.
// An entry without data is dropped rather than kept beside the new one:
// two entries may not share a start offset, and attributing the new
// epoch's data to an older epoch would hide a divergence from a replica.
func (s *Service) recordEpoch(ef *epoch.File, epochNum int32, start int64) error {
	if err := ef.TruncateSuffixByOffset(start); err != nil {
		return err
	}
	if err := ef.TruncateSuffixByEpoch(epochNum); err != nil {
		return err
	}
	return ef.Append(epoch.Entry{Epoch: epochNum, StartOffset: start})
}

// ChangeToSlave makes this broker (brokerID) a replica of the master at
// masterHAAddr in epoch (5.x changeToSlave): the store refuses puts at
// once, pending replica waits fail, master-side connections close, and
// the client connects with the auto-switch handshake, truncates the local
// CommitLog, consume queues and index to the last offset shared with the
// master, and copies from there.
func (s *Service) ChangeToSlave(masterHAAddr string, epochNum int32, brokerID int64) error {
	if err := s.EnableControllerMode(); err != nil {
		return err
	}
	s.ctl.roleMu.Lock()
	defer s.ctl.roleMu.Unlock()
	if last := s.ctl.epochs.Load().LastEpoch(); epochNum < last {
		return fmt.Errorf("%w: %d < %d", ErrStaleEpoch, epochNum, last)
	}
	prev := s.st.BrokerRole()
	if err := s.st.SetBrokerRole(store.Slave); err != nil {
		return err
	}
	wasMaster := s.ctl.master.Swap(false)
	s.wokenTo.Store(-1) // the tail may be truncated and regrow to the same end
	s.ctl.localID.Store(brokerID)
	if wasMaster || prev != store.Slave {
		s.closeConnections()
		s.group.failAll()
		s.ctl.allAck.failAll()
		s.ctl.sss.reset()
	}
	s.setMasterAddress(masterHAAddr)
	s.lg.Info("ha changed to slave", zap.String("masterHAAddr", masterHAAddr), zap.Int32("epoch", epochNum),
		zap.Int64("brokerId", brokerID))
	return nil
}

// closeConnections closes every master-side connection (5.x
// destroyConnections); their goroutines remove them.
func (s *Service) closeConnections() {
	s.connMu.RLock()
	for c := range s.conns {
		c.close()
	}
	s.connMu.RUnlock()
}

// stopClient clears the master address and waits until the client's
// session, if any, has ended, so nothing is appended to the store after it
// returns.
func (s *Service) stopClient(ctx context.Context) error {
	s.setMasterAddress("")
	s.clientMu.Lock()
	done := s.clientDone
	s.clientMu.Unlock()
	if done == nil {
		return nil
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("ha: replication session still running: %w", ctx.Err())
	}
}
