package controller

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"go.uber.org/zap/zaptest"
)

// TestControllerMuxSplitsByFirstByte: a connection starting with the Raft
// preface reaches the stream layer with the preface consumed; any other one
// reaches the remoting listener with its first bytes intact; a connection
// whose preface is wrong is closed.
func TestControllerMuxSplitsByFirstByte(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := newMux(ln, zaptest.NewLogger(t))
	m.start()
	t.Cleanup(m.close)
	rl, sl := m.remotingListener(), m.streamLayer(ln.Addr())

	accept := func(l net.Listener) net.Conn {
		t.Helper()
		type res struct {
			c   net.Conn
			err error
		}
		ch := make(chan res, 1)
		go func() { c, err := l.Accept(); ch <- res{c, err} }()
		select {
		case r := <-ch:
			if r.err != nil {
				t.Fatal(r.err)
			}
			t.Cleanup(func() { _ = r.c.Close() })
			return r.c
		case <-time.After(10 * time.Second):
			t.Fatal("accept timed out")
		}
		return nil
	}
	read := func(c net.Conn, n int) string {
		t.Helper()
		b := make([]byte, n)
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.ReadFull(c, b); err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	_, err = sl.Dial("256.0.0.1:1", time.Second)
	if err == nil {
		t.Fatal("dial of a bad address succeeded")
	}
	raftConn, err := sl.Dial(raft.ServerAddress(ln.Addr().String()), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer raftConn.Close()
	if _, err := raftConn.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	if got := read(accept(sl), 5); got != "hello" {
		t.Fatalf("raft side read %q", got)
	}

	plain, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	frame := "\x00\x00\x00\x10rest-of-frame..."
	if _, err := plain.Write([]byte(frame)); err != nil {
		t.Fatal(err)
	}
	if got := read(accept(rl), len(frame)); got != frame {
		t.Fatalf("remoting side read %q", got)
	}

	bad, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	if _, err := bad.Write([]byte{0xF7, 'X', 'X', 'X'}); err != nil {
		t.Fatal(err)
	}
	_ = bad.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := bad.Read(make([]byte, 1)); err == nil {
		t.Fatal("bad preface connection left open")
	}
}
