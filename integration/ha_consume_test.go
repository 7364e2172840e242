package integration

// Go push consumers against a master and its slave: reads that move to the
// slave, and consumption across the master's failure.

import (
	"context"
	"fmt"
	"io"
	"net"
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
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  []net.Conn
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
		go func() { defer p.wg.Done(); _, _ = io.Copy(c, s); _ = c.Close() }()
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
				}
				pending = pending[fl:]
			}
		}
		if err != nil {
			return
		}
	}
}

// proxied gives the broker a brokerIP1 of ip, and after its start puts a
// pull-counting proxy on ip:<its port>.
func proxied(t *testing.T, counters map[int64]*pullCounter) func(*broker.Broker) {
	return func(b *broker.Broker) {
		_, port, _ := net.SplitHostPort(b.Addr().String())
		_, regPort, _ := net.SplitHostPort(b.BrokerAddr())
		if port != regPort {
			t.Fatalf("registered %s, listening on %s", b.BrokerAddr(), b.Addr())
		}
		counters[b.Config().BrokerID] = startPullCounter(t, b.BrokerAddr(), b.Addr().String())
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
	var once sync.Once
	e.t.Cleanup(func() { once.Do(func() { _ = hc.Shutdown() }) })
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
// the slave, and it still receives every message once.
func TestHAConsumeFromSlaveWhenSlow(t *testing.T) {
	counters := map[int64]*pullCounter{}
	ips := map[int64]string{0: "127.0.0.3", 1: "127.0.0.2"}
	e := newHAEnvWith(t, store.AsyncMaster, proxied(t, counters), func(m, s *broker.BrokerConfig, ms, ss *store.MessageStoreConfig) {
		m.BrokerIP1, s.BrokerIP1 = ips[0], ips[1]
		m.SlaveReadEnable, s.SlaveReadEnable = true, true
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
	t.Logf("pulls: master %d, slave %d", mp, sp)
	if sp < 4 {
		t.Fatalf("only %d pulls reached the slave (master %d)", sp, mp)
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
