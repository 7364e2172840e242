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
// A pool may be registered on several servers/clients; each registrant holds a
// reference and the workers stop when the last one releases it.
type Pool struct {
	name  string
	tasks chan func() // closed by stop; workers exit when it drains

	mu      sync.RWMutex // guards stopped and refs; held (read) across the non-blocking send
	stopped bool
	refs    int

	wg sync.WaitGroup // workers
}

// NewPool starts workers goroutines serving a queue of queueCapacity tasks.
func NewPool(name string, workers, queueCapacity int) *Pool {
	if workers < 1 {
		workers = 1
	}
	if queueCapacity < 0 {
		queueCapacity = 0
	}
	p := &Pool{name: name, tasks: make(chan func(), queueCapacity)}
	p.wg.Add(workers)
	for range workers {
		go p.work()
	}
	return p
}

// Name returns the name given to NewPool.
func (p *Pool) Name() string { return p.name }

func (p *Pool) work() {
	defer p.wg.Done()
	for f := range p.tasks {
		f()
	}
}

// Submit queues f without blocking; false when the queue is full or the pool stopped.
func (p *Pool) Submit(f func()) bool {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.stopped {
		return false
	}
	select {
	case p.tasks <- f:
		return true
	default:
		return false
	}
}

// QueueLen is the number of queued, not yet started tasks.
func (p *Pool) QueueLen() int { return len(p.tasks) }

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
	if !p.stopped {
		p.stopped = true
		close(p.tasks)
	}
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
