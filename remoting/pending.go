package remoting

import (
	"fmt"
	"sync"
	"time"

	"github.com/rocketmq-go/rmq/remoting/codec"
)

type invokeResult struct {
	resp *codec.RemotingCommand
	err  error
}

// responseFuture is one request waiting for its reply (Java's ResponseFuture).
// Exactly one of result (sync) and cb (async) is set. Whoever removes the
// entry from the pendingTable completes it, so completion happens once.
type responseFuture struct {
	opaque   int32
	ch       *Channel
	deadline time.Time // async only; zero: none
	result   chan invokeResult
	cb       func(*codec.RemotingCommand, error)
}

// pendingTable maps opaque → responseFuture for one endpoint (Java's responseTable).
type pendingTable struct {
	mu sync.Mutex
	m  map[int32]*responseFuture
}

func newPendingTable() *pendingTable {
	return &pendingTable{m: make(map[int32]*responseFuture)}
}

func (t *pendingTable) put(rf *responseFuture) {
	t.mu.Lock()
	t.m[rf.opaque] = rf
	t.mu.Unlock()
}

func (t *pendingTable) remove(opaque int32) *responseFuture {
	t.mu.Lock()
	defer t.mu.Unlock()
	rf, ok := t.m[opaque]
	if !ok {
		return nil
	}
	delete(t.m, opaque)
	return rf
}

func (t *pendingTable) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.m)
}

// removeIf takes every entry matching keep==false out of the table.
func (t *pendingTable) removeIf(match func(*responseFuture) bool) []*responseFuture {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []*responseFuture
	for op, rf := range t.m {
		if match(rf) {
			delete(t.m, op)
			out = append(out, rf)
		}
	}
	return out
}

// expired removes async entries whose deadline passed.
func (t *pendingTable) expired(now time.Time) []*responseFuture {
	return t.removeIf(func(rf *responseFuture) bool {
		return !rf.deadline.IsZero() && now.After(rf.deadline)
	})
}

// ofChannel removes every entry waiting on ch (Java's failFast on close).
func (t *pendingTable) ofChannel(ch *Channel) []*responseFuture {
	return t.removeIf(func(rf *responseFuture) bool { return rf.ch == ch })
}

func (t *pendingTable) all() []*responseFuture {
	return t.removeIf(func(*responseFuture) bool { return true })
}

func timeoutErr(rf *responseFuture) error {
	return fmt.Errorf("%w: %s opaque %d", ErrTimeout, rf.ch.remoteAddr, rf.opaque)
}

func closedErr(rf *responseFuture) error {
	return fmt.Errorf("%w: %s opaque %d", ErrChannelClosed, rf.ch.remoteAddr, rf.opaque)
}
