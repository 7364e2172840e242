package metrics

import (
	"sync"
	"sync/atomic"
)

// PullOffsets is the next offset each (group, topic, queue) will pull
// from: 5.x ConsumerOffsetManager's pullOffsetTable. A nil *PullOffsets
// records nothing (metrics disabled).
type PullOffsets struct {
	mu sync.RWMutex              // guards m (not the cells)
	m  map[pullKey]*atomic.Int64 // plain map: struct keys of strings look up without allocating
}

type pullKey struct {
	group, topic string
	queueID      int32
}

// NewPullOffsets returns an empty table.
func NewPullOffsets() *PullOffsets { return &PullOffsets{m: map[pullKey]*atomic.Int64{}} }

// Record stores offset as the group's next pull offset of the queue.
func (p *PullOffsets) Record(group, topic string, queueID int32, offset int64) {
	if p == nil {
		return
	}
	k := pullKey{group, topic, queueID}
	p.mu.RLock()
	c := p.m[k]
	p.mu.RUnlock()
	if c == nil {
		p.mu.Lock()
		if c = p.m[k]; c == nil {
			c = new(atomic.Int64)
			p.m[k] = c
		}
		p.mu.Unlock()
	}
	c.Store(offset)
}

// Query returns the recorded offset, or -1.
func (p *PullOffsets) Query(group, topic string, queueID int32) int64 {
	p.mu.RLock()
	c := p.m[pullKey{group, topic, queueID}]
	p.mu.RUnlock()
	if c == nil {
		return -1
	}
	return c.Load()
}
