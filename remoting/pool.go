package remoting

import (
	"context"
	"sync"
)

// Pool is a bounded executor: a fixed number of worker goroutines fed by a
// queue of fixed capacity. It plays the role of the ThreadPoolExecutor Java
// registers beside each processor: Submit never blocks, it reports false when
// the queue is full (Java's RejectedExecutionException → SYSTEM_BUSY).
//
// The queue is a ring that grows on demand up to its capacity, like Java's
// LinkedBlockingQueue, instead of a channel buffer allocated at full
// capacity: the broker's default capacities (up to 1,000,000 per pool) made
// 20 MB of always-live pointer slots that every garbage collection had to
// scan, a large part of the broker's CPU under load. A task offered while
// a worker is idle is handed to that worker even with capacity 0, as a
// channel send to a waiting receiver is.
//
// A pool may be registered on several servers/clients; each registrant holds a
// reference and the workers stop when the last one releases it.
type Pool struct {
	name     string
	capacity int

	mu       sync.Mutex // guards everything below; never held while a task runs
	cond     *sync.Cond // on mu: signalled per task and on stop
	ring     []func()   // queued tasks: ring[head], ring[head+1]... (mod len), n of them
	head, n  int
	idle     int // workers waiting for a task and not yet promised one
	promised int // queued tasks promised to an idle worker: not counted against capacity
	stopped  bool
	refs     int

	wg sync.WaitGroup // workers
}

// shrinkRing is the ring size above which an emptied queue gives its
// memory back.
const shrinkRing = 1024

// NewPool starts workers goroutines serving a queue of queueCapacity tasks.
func NewPool(name string, workers, queueCapacity int) *Pool {
	if workers < 1 {
		workers = 1
	}
	if queueCapacity < 0 {
		queueCapacity = 0
	}
	p := &Pool{name: name, capacity: queueCapacity}
	p.cond = sync.NewCond(&p.mu)
	p.wg.Add(workers)
	for range workers {
		go p.work()
	}
	return p
}

// Name returns the name given to NewPool.
func (p *Pool) Name() string { return p.name }

// work runs queued tasks until the pool stops and its queue is drained.
func (p *Pool) work() {
	defer p.wg.Done()
	for {
		f := p.next()
		if f == nil {
			return
		}
		f()
	}
}

// next waits for a task; nil once the pool stopped and nothing is queued.
func (p *Pool) next() func() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.n == 0 {
		if p.stopped {
			return nil
		}
		p.idle++
		p.cond.Wait()
	}
	f := p.ring[p.head]
	p.ring[p.head] = nil
	p.head = (p.head + 1) % len(p.ring)
	p.n--
	if p.promised > 0 {
		p.promised--
	}
	if p.n == 0 && len(p.ring) > shrinkRing {
		p.ring, p.head = nil, 0
	}
	return f
}

// Submit queues f without blocking; false when the queue is full or the pool stopped.
func (p *Pool) Submit(f func()) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return false
	}
	switch {
	case p.idle > 0:
		p.idle--
		p.promised++
	case p.n-p.promised >= p.capacity:
		return false
	}
	p.push(f)
	p.cond.Signal()
	return true
}

// push appends f to the ring, doubling it when full. Caller holds mu.
func (p *Pool) push(f func()) {
	if p.n == len(p.ring) {
		grown := make([]func(), max(16, 2*len(p.ring)))
		for i := range p.n {
			grown[i] = p.ring[(p.head+i)%len(p.ring)]
		}
		p.ring, p.head = grown, 0
	}
	p.ring[(p.head+p.n)%len(p.ring)] = f
	p.n++
}

// QueueLen is the number of queued, not yet started tasks.
func (p *Pool) QueueLen() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n
}

func (p *Pool) acquire() {
	p.mu.Lock()
	p.refs++
	p.mu.Unlock()
}

// release drops one registrant's reference and stops the pool with the last one.
func (p *Pool) release(ctx context.Context) error {
	p.mu.Lock()
	p.refs--
	last := p.refs <= 0
	p.mu.Unlock()
	if !last {
		return nil
	}
	return p.Stop(ctx)
}

// Stop refuses new tasks, lets queued and running ones finish and waits for
// the workers within ctx. It is idempotent.
func (p *Pool) Stop(ctx context.Context) error {
	p.mu.Lock()
	p.stopped = true
	p.cond.Broadcast()
	p.mu.Unlock()
	done := make(chan struct{})
	go func() { p.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
