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
)

// liveRole is the role the running store acts on, plus the broker id the
// dispatcher's master rule needs (brokerId 0 on a master).
type liveRole struct {
	role     atomic.Pointer[BrokerRole]
	brokerID atomic.Int64
}

func (l *liveRole) init(r BrokerRole, brokerID int64) {
	l.role.Store(&r)
	l.brokerID.Store(brokerID)
}

// BrokerRole is the role the store runs with now: the configured
// brokerRole until SetBrokerRole changes it.
func (s *DefaultMessageStore) BrokerRole() BrokerRole { return *s.role.role.Load() }

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
