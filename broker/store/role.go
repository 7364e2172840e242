package store

// The live broker role. Java 4.9.8 reads MessageStoreConfig.brokerRole at
// use time and only the broker's slave-acting paths ever write it; 5.x's
// controller mode (ReplicasManager.changeToMaster / changeToSlave) sets it
// at runtime. The store keeps the role in an atomic, initialised from the
// static configuration at Open, and every use-time reader (put refusal,
// dispatcher, long-poll notification, offset correction, the CommitLog's
// SYNC_MASTER wait) consults it.

import (
	"fmt"
	"sync/atomic"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/internal/message"
)

// liveRole is the role the running store acts on, plus the broker id the
// dispatcher's master rule needs (brokerId 0 on a master).
type liveRole struct {
	role     atomic.Pointer[BrokerRole] // nil until SetBrokerRole: cfg.BrokerRole applies
	brokerID atomic.Int64
	fenced   atomic.Bool                 // SetFenced: puts refused
	inSync   atomic.Pointer[func() bool] // SetInSyncReplicasCheck
	deleted  atomic.Pointer[func(int64)] // SetOnCommitLogFilesDeleted
}

func (l *liveRole) init(brokerID int64) { l.brokerID.Store(brokerID) }

// BrokerRole is the role the store runs with now: the configured
// brokerRole (read at use time, as Java does) until SetBrokerRole sets one.
func (s *DefaultMessageStore) BrokerRole() BrokerRole {
	if r := s.role.role.Load(); r != nil {
		return *r
	}
	return s.cfg.BrokerRole
}

// SetBrokerRole switches the running store to r (controller mode). A SLAVE
// refuses puts (SERVICE_NOT_AVAILABLE) and does not notify long polls; a
// SYNC_MASTER waits for the replica confirmation of waiting puts; a master
// role also makes the store act as brokerId 0 for dispatch. The static
// configuration keeps its start-up value.
func (s *DefaultMessageStore) SetBrokerRole(r BrokerRole) error {
	switch r {
	case AsyncMaster, SyncMaster, Slave:
	default:
		return fmt.Errorf("store: unknown brokerRole %q", r)
	}
	old := s.BrokerRole()
	if r != Slave {
		s.role.brokerID.Store(0)
	}
	s.cl.SetSyncMaster(r == SyncMaster)
	s.role.role.Store(&r)
	if old != r {
		s.lg.Info("broker role changed", zap.String("old", string(old)), zap.String("new", string(r)))
	}
	return nil
}

// isSlave reports whether the store acts as a slave now.
func (s *DefaultMessageStore) isSlave() bool { return s.BrokerRole() == Slave }

// isDispatchMaster is Java's "brokerRole != SLAVE && brokerId == 0" of the
// dispatcher: a master skips an unreadable tail, a slave waits for it.
func (s *DefaultMessageStore) isDispatchMaster() bool {
	return !s.isSlave() && s.role.brokerID.Load() == 0
}

// SetFenced makes the store refuse puts with SERVICE_NOT_AVAILABLE while
// on (5.x RunningFlags.makeFenced: a controller-mode master that lost its
// lease or learned a newer epoch must not acknowledge writes).
func (s *DefaultMessageStore) SetFenced(on bool) {
	if s.role.fenced.Swap(on) != on {
		s.lg.Warn("store fencing changed", zap.Bool("fenced", on))
	}
}

// IsFenced reports whether SetFenced(true) is in effect.
func (s *DefaultMessageStore) IsFenced() bool { return s.role.fenced.Load() }

// SetInSyncReplicasCheck installs f, asked before a put that waits for its
// store (property WAIT != "false") is appended on a SYNC_MASTER: false
// refuses it with IN_SYNC_REPLICAS_NOT_ENOUGH and nothing is written (5.x
// controller mode, minInSyncReplicas). nil removes it.
func (s *DefaultMessageStore) SetInSyncReplicasCheck(f func() bool) {
	if f == nil {
		s.role.inSync.Store(nil)
		return
	}
	s.role.inSync.Store(&f)
}

// checkInSyncReplicas applies SetInSyncReplicasCheck's rule to a put
// whose first message is m.
func (s *DefaultMessageStore) checkInSyncReplicas(m *message.MessageExt) commitlog.PutMessageStatus {
	f := s.role.inSync.Load()
	if f == nil || s.BrokerRole() != SyncMaster ||
		message.PropertyValue(m.PropertiesString, message.PropertyWaitStoreMsgOK) == "false" {
		return commitlog.PutOK
	}
	if !(*f)() {
		return commitlog.InSyncReplicasNotEnough
	}
	return commitlog.PutOK
}

// SetOnCommitLogFilesDeleted installs f, called on the cleanup goroutine
// with the new CommitLog min offset after retention deleted CommitLog
// files (controller mode drops the epoch entries that ended before it, as
// 5.x's CleanCommitLogService does). nil removes it.
func (s *DefaultMessageStore) SetOnCommitLogFilesDeleted(f func(minPhyOffset int64)) {
	if f == nil {
		s.role.deleted.Store(nil)
		return
	}
	s.role.deleted.Store(&f)
}

func (s *DefaultMessageStore) notifyCommitLogFilesDeleted() {
	if f := s.role.deleted.Load(); f != nil {
		(*f)(s.cl.MinOffset())
	}
}
