package client

// RebalanceLockManager mirrors Java's broker/client/rebalance/RebalanceLockManager:
// the LOCK_BATCH_MQ / UNLOCK_BATCH_MQ lease table of orderly consumers.

import (
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/remoting/body"
)

// RebalanceLockMaxLiveTime is how long a queue lock lives without being
// renewed (-Drocketmq.broker.rebalance.lockMaxLiveTime, default 60000 ms).
const RebalanceLockMaxLiveTime = 60 * time.Second

type lockEntry struct {
	clientID   string
	lastUpdate int64 // unix ms
}

// RebalanceLockManager grants message queues of a consumer group to one
// client at a time; a lease expires after the max live time unless the
// holder locks the queue again.
type RebalanceLockManager struct {
	lg      *zap.Logger
	now     func() time.Time
	maxLive time.Duration

	mu    sync.Mutex
	table map[string]map[body.MessageQueue]*lockEntry // group -> queue -> holder
}

// NewRebalanceLockManager returns an empty lock table; maxLive <= 0 means
// RebalanceLockMaxLiveTime. opts supplies the logger and clock.
func NewRebalanceLockManager(maxLive time.Duration, opts Options) *RebalanceLockManager {
	if maxLive <= 0 {
		maxLive = RebalanceLockMaxLiveTime
	}
	return &RebalanceLockManager{lg: opts.logger().Named("broker.client.rebalance"), now: opts.clock(),
		maxLive: maxLive, table: map[string]map[body.MessageQueue]*lockEntry{}}
}

func (m *RebalanceLockManager) expired(e *lockEntry, nowMs int64) bool {
	return nowMs-e.lastUpdate > m.maxLive.Milliseconds()
}

// TryLock locks one queue for clientID; true when clientID holds it afterwards.
func (m *RebalanceLockManager) TryLock(group string, mq body.MessageQueue, clientID string) bool {
	return len(m.TryLockBatch(group, []body.MessageQueue{mq}, clientID)) == 1
}

// TryLockBatch locks the queues it can for clientID and returns them (the
// LOCK_BATCH_MQ answer): free queues, queues clientID already holds
// (renewed) and queues whose lease expired are granted; queues held by a
// live other client are not.
func (m *RebalanceLockManager) TryLockBatch(group string, mqs []body.MessageQueue, clientID string) []body.MessageQueue {
	nowMs := m.now().UnixMilli()
	m.mu.Lock()
	defer m.mu.Unlock()
	groupTable := m.table[group]
	if groupTable == nil {
		groupTable = map[body.MessageQueue]*lockEntry{}
		m.table[group] = groupTable
	}
	locked := make([]body.MessageQueue, 0, len(mqs))
	for _, mq := range mqs {
		if m.tryLockLocked(groupTable, group, mq, clientID, nowMs) {
			locked = append(locked, mq)
		}
	}
	return locked
}

func (m *RebalanceLockManager) tryLockLocked(t map[body.MessageQueue]*lockEntry, group string, mq body.MessageQueue,
	clientID string, nowMs int64) bool {
	e := t[mq]
	if e == nil {
		t[mq] = &lockEntry{clientID: clientID, lastUpdate: nowMs}
		m.lg.Info("tryLockBatch, message queue not locked, I got it", zap.String("group", group),
			zap.String("clientId", clientID), zap.String("topic", mq.Topic), zap.Int32("queueId", mq.QueueID))
		return true
	}
	if e.clientID == clientID && !m.expired(e, nowMs) {
		e.lastUpdate = nowMs
		return true
	}
	if m.expired(e, nowMs) {
		m.lg.Warn("tryLockBatch, message queue lock expired, I got it", zap.String("group", group),
			zap.String("oldClientId", e.clientID), zap.String("clientId", clientID),
			zap.String("topic", mq.Topic), zap.Int32("queueId", mq.QueueID))
		e.clientID, e.lastUpdate = clientID, nowMs
		return true
	}
	m.lg.Warn("tryLockBatch, message queue locked by other client", zap.String("group", group),
		zap.String("otherClientId", e.clientID), zap.String("clientId", clientID),
		zap.String("topic", mq.Topic), zap.Int32("queueId", mq.QueueID))
	return false
}

// UnlockBatch releases the queues clientID holds; queues held by others stay.
func (m *RebalanceLockManager) UnlockBatch(group string, mqs []body.MessageQueue, clientID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.table[group]
	if t == nil {
		m.lg.Warn("unlockBatch, group not exist", zap.String("group", group), zap.String("clientId", clientID))
		return
	}
	for _, mq := range mqs {
		e := t[mq]
		switch {
		case e == nil:
			m.lg.Warn("unlockBatch, but mq not locked", zap.String("group", group), zap.String("clientId", clientID),
				zap.String("topic", mq.Topic), zap.Int32("queueId", mq.QueueID))
		case e.clientID == clientID:
			delete(t, mq)
			m.lg.Info("unlockBatch", zap.String("group", group), zap.String("clientId", clientID),
				zap.String("topic", mq.Topic), zap.Int32("queueId", mq.QueueID))
		default:
			m.lg.Warn("unlockBatch, but mq locked by other client", zap.String("group", group),
				zap.String("otherClientId", e.clientID), zap.String("clientId", clientID),
				zap.String("topic", mq.Topic), zap.Int32("queueId", mq.QueueID))
		}
	}
}

// IsLocked reports whether clientID holds a live lock on mq (renewing it, as
// Java's isLocked does).
func (m *RebalanceLockManager) IsLocked(group string, mq body.MessageQueue, clientID string) bool {
	nowMs := m.now().UnixMilli()
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.table[group][mq]
	if e == nil || e.clientID != clientID || m.expired(e, nowMs) {
		return false
	}
	e.lastUpdate = nowMs
	return true
}
