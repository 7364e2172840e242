package integration

// Go push consumers against a master and its slave: reads that move to the
// slave, and consumption across the master's failure.

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// pullCounter is a TCP proxy in front of a broker that counts the
// PULL_MESSAGE requests clients send through it. The broker registers the
// proxy's address (brokerIP1 = the proxy's loopback address, same port).
type pullCounter struct {
	ln     net.Listener
	target string
	pulls  atomic.Int64
	// suggest counts pull responses by suggestWhichBrokerId.
	suggest sync.Map // int64 -> *atomic.Int64
	opaques sync.Map // opaque of a pull request in flight -> struct{}
	id      int64
	log     *pullLog
	wg      sync.WaitGroup
	mu      sync.Mutex
	conns   []net.Conn
}

func startPullCounter(t *testing.T, listen, target string) *pullCounter {
	t.Helper()
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		t.Fatalf("proxy listen %s: %v", listen, err)
	}
	p := &pullCounter{ln: ln, target: target}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

func (p *pullCounter) close() {
	_ = p.ln.Close()
	p.mu.Lock()
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

func (p *pullCounter) track(cs ...net.Conn) {
	p.mu.Lock()
	p.conns = append(p.conns, cs...)
	p.mu.Unlock()
}

func (p *pullCounter) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = c.Close()
			continue
		}
		p.track(c, s)
		p.wg.Add(2)
		go func() { defer p.wg.Done(); p.backward(s, c); _ = c.Close() }()
		go func() { defer p.wg.Done(); p.forward(c, s); _ = s.Close() }()
	}
}

// forward copies client -> broker and counts the PULL_MESSAGE frames.
func (p *pullCounter) forward(c, s net.Conn) {
	var pending []byte
	buf := make([]byte, 64<<10)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			if _, werr := s.Write(buf[:n]); werr != nil {
				return
			}
			pending = append(pending, buf[:n]...)
			for {
				fl, ferr := codec.FrameLength(pending, codec.DefaultMaxFrameLength)
				if ferr != nil || fl == 0 || fl > len(pending) {
					break
				}
				if cmd, derr := codec.Decode(pending[:fl]); derr == nil && !cmd.IsResponse() && cmd.Code == code.PullMessage {
					p.pulls.Add(1)
					p.opaques.Store(cmd.Opaque, struct{}{})
					if p.log != nil {
						p.log.add(p.id, cmd.Ext("queueId"), cmd.Ext("queueOffset"))
					}
				}
				pending = pending[fl:]
			}
		}
		if err != nil {
			return
		}
	}
}

// backward copies broker -> client and tallies the suggestWhichBrokerId of
// pull responses.
func (p *pullCounter) backward(s, c net.Conn) {
	var pending []byte
	buf := make([]byte, 64<<10)
	for {
		n, err := s.Read(buf)
		if n > 0 {
			if _, werr := c.Write(buf[:n]); werr != nil {
				return
			}
			pending = append(pending, buf[:n]...)
			for {
				fl, ferr := codec.FrameLength(pending, codec.DefaultMaxFrameLength)
				if ferr != nil || fl == 0 || fl > len(pending) {
					break
				}
				if cmd, derr := codec.Decode(pending[:fl]); derr == nil && cmd.IsResponse() {
					if _, ok := p.opaques.LoadAndDelete(cmd.Opaque); ok && (cmd.Code == code.Success || cmd.Code == code.PullRetryImmediately) {
						id, _ := strconv.ParseInt(cmd.Ext("suggestWhichBrokerId"), 10, 64)
						v, _ := p.suggest.LoadOrStore(id, new(atomic.Int64))
						v.(*atomic.Int64).Add(1)
					}
				}
				pending = pending[fl:]
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *pullCounter) suggested(id int64) int64 {
	if v, ok := p.suggest.Load(id); ok {
		return v.(*atomic.Int64).Load()
	}
	return 0
}

// pullLog records the order of pulls over every proxy.
type pullLog struct {
	mu      sync.Mutex
	entries []pullEntry
}

type pullEntry struct {
	brokerID       int64
	queueID, start string
}

func (l *pullLog) add(id int64, qid, off string) {
	l.mu.Lock()
	l.entries = append(l.entries, pullEntry{id, qid, off})
	l.mu.Unlock()
}

// slaveToSlave counts, per queue, slave pulls whose next pull of the same
// queue went to the slave again at a different offset (the client stayed
// on the slave; a repeat at the same offset is a retry after an error).
func (l *pullLog) slaveToSlave() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	last := map[string]pullEntry{}
	n := 0
	for _, e := range l.entries {
		if p, ok := last[e.queueID]; ok && p.brokerID != 0 && e.brokerID != 0 && p.start != e.start {
			n++
		}
		last[e.queueID] = e
	}
	return n
}

// proxied gives the broker a brokerIP1 of ip, and after its start puts a
// pull-counting proxy on ip:<its port>.
func proxied(t *testing.T, counters map[int64]*pullCounter, log *pullLog) func(*broker.Broker) {
	return func(b *broker.Broker) {
		_, port, _ := net.SplitHostPort(b.Addr().String())
		_, regPort, _ := net.SplitHostPort(b.BrokerAddr())
		if port != regPort {
			t.Fatalf("registered %s, listening on %s", b.BrokerAddr(), b.Addr())
		}
		pc := startPullCounter(t, b.BrokerAddr(), b.Addr().String())
		pc.id, pc.log = b.Config().BrokerID, log
		counters[b.Config().BrokerID] = pc
	}
}

type haConsumer interface {
	Start() error
	Shutdown() error
	Subscribe(topic string, selector consumer.MessageSelector, f func(context.Context, ...*primitive.MessageExt) (consumer.ConsumeResult, error)) error
	Suspend()
	Resume()
}

func (e *haEnv) startConsumer(group string, r *received) haConsumer {
	e.t.Helper()
	c, err := consumer.NewPushConsumer(
		consumer.WithNsResolver(primitive.NewPassthroughResolver([]string{e.nsAddr})),
		consumer.WithGroupName(group),
		consumer.WithInstance(uniqueName("hac")),
		consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset),
	)
	if err != nil {
		e.t.Fatal(err)
	}
	hc, ok := any(c).(haConsumer)
	if !ok {
		e.t.Fatal("push consumer lacks Suspend/Resume")
	}
	err = hc.Subscribe(e.topic, consumer.MessageSelector{Type: consumer.TAG, Expression: "*"},
		func(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
			r.add(msgs...)
			return consumer.ConsumeSuccess, nil
		})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := hc.Start(); err != nil {
		e.t.Fatal(err)
	}
	started := time.Now()
	var once sync.Once
	e.t.Cleanup(func() { once.Do(func() { _ = testutil.ShutdownSettled(started, hc.Shutdown) }) })
	return hc
}

func (e *haEnv) sendBatch(from, n int) {
	e.t.Helper()
	for i := from; i < from+n; i++ {
		if r, err := e.sendOne(i, 256); err != nil || r.Status != primitive.SendOK {
			e.t.Fatalf("send %d: %v %v", i, r, err)
		}
	}
}

// haWaitBodies waits until every message i in [from, from+n) was received.
func haWaitBodies(t *testing.T, e *haEnv, r *received, from, n int, within time.Duration) {
	t.Helper()
	testutil.Eventually(t, within, func() error {
		for i := from; i < from+n; i++ {
			if !r.has(string(e.msg(i, 256).Body)) {
				return fmt.Errorf("message %d not received (%d distinct so far)", i, r.count())
			}
		}
		return nil
	})
}

// TestHAConsumeFromSlaveWhenSlow: with a backlog beyond the (lowered)
// in-memory limit and slaveReadEnable on, the Go consumer's pulls move to
// the slave and stay there; with slaveReadEnable off on the slave, every
// pull it answers sends the client back to the master. Either way every
// message arrives once.
func TestHAConsumeFromSlaveWhenSlow(t *testing.T) {
	for _, slaveRead := range []bool{true, false} {
		t.Run(fmt.Sprintf("slaveReadEnable=%v", slaveRead), func(t *testing.T) {
			counters := map[int64]*pullCounter{}
			log := &pullLog{}
			e := newHAEnvWith(t, store.AsyncMaster, proxied(t, counters, log), func(m, s *broker.BrokerConfig, ms, ss *store.MessageStoreConfig) {
				m.BrokerIP1, s.BrokerIP1 = "127.0.0.3", "127.0.0.2"
				m.SlaveReadEnable, s.SlaveReadEnable = true, slaveRead
				ms.AccessMessageInMemoryMaxRatio, ss.AccessMessageInMemoryMaxRatio = 0, 0
			})
			e.sendBatch(0, 200)
			haWaitReplicated(t, e.master.Store(), e.slave.Store(), e.topic)
			r := newReceived()
			e.startConsumer(uniqueName("hacs"), r)
			haWaitBodies(t, e, r, 0, 200, 30*time.Second)
			if dup := r.duplicates(); dup != 0 {
				t.Fatalf("%d messages received more than once", dup)
			}
			mp, sp := counters[0].pulls.Load(), counters[1].pulls.Load()
			stays := log.slaveToSlave()
			toMaster, toSlave := counters[1].suggested(0), counters[1].suggested(1)
			t.Logf("pulls: master %d, slave %d; slave answers suggesting master %d, slave %d; client stayed on the slave %d times",
				mp, sp, toMaster, toSlave, stays)
			switch {
			case sp == 0 || toMaster+toSlave == 0:
				t.Fatalf("no pull answered by the slave (master %d)", mp)
			case slaveRead && (toSlave == 0 || stays == 0):
				t.Fatal("with slaveReadEnable the slave never kept the client")
			case !slaveRead && toSlave != 0:
				t.Fatalf("without slaveReadEnable the slave suggested itself %d times", toSlave)
			}
		})
	}
}

func (r *received) duplicates() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, c := range r.seen {
		if c > 1 {
			n++
		}
	}
	return n
}
