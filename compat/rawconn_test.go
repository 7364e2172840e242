package compat

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/remoting/codec"
)

// rawConn writes recorded frames byte for byte (our remoting client would
// re-encode them) and collects the server's answers by opaque. Requests the
// server sends on the connection (NOTIFY_CONSUMER_IDS_CHANGED) are dropped.
type rawConn struct {
	c       net.Conn
	mu      sync.Mutex
	answers map[int32]*codec.RemotingCommand
	arrived chan struct{} // closed and replaced on every answer
	err     error         // the reader's terminal error, under mu
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	rc := &rawConn{c: c, answers: map[int32]*codec.RemotingCommand{}, arrived: make(chan struct{})}
	done := make(chan struct{})
	go func() {
		defer close(done)
		rc.readLoop()
	}()
	t.Cleanup(func() {
		_ = c.Close()
		<-done
	})
	return rc
}

func (rc *rawConn) readLoop() {
	for {
		var lenBuf [4]byte
		_, err := io.ReadFull(rc.c, lenBuf[:])
		var frame []byte
		if err == nil {
			frame = make([]byte, 4+binary.BigEndian.Uint32(lenBuf[:]))
			copy(frame, lenBuf[:])
			_, err = io.ReadFull(rc.c, frame[4:])
		}
		var cmd *codec.RemotingCommand
		if err == nil {
			cmd, err = codec.Decode(frame)
		}
		rc.mu.Lock()
		if err != nil {
			rc.err = err
		} else if cmd.IsResponse() {
			rc.answers[cmd.Opaque] = cmd
		}
		close(rc.arrived)
		rc.arrived = make(chan struct{})
		rc.mu.Unlock()
		if err != nil {
			return
		}
	}
}

func (rc *rawConn) write(t *testing.T, frame []byte) {
	t.Helper()
	if _, err := rc.c.Write(frame); err != nil {
		t.Fatalf("write: %v", err)
	}
}

// answer waits up to timeout for the answer with the given opaque.
func (rc *rawConn) answer(opaque int32, timeout time.Duration) (*codec.RemotingCommand, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		rc.mu.Lock()
		resp, ok := rc.answers[opaque]
		err, arrived := rc.err, rc.arrived
		rc.mu.Unlock()
		switch {
		case ok:
			return resp, nil
		case err != nil:
			return nil, fmt.Errorf("connection ended before answer %d: %w", opaque, err)
		}
		select {
		case <-arrived:
		case <-deadline.C:
			return nil, fmt.Errorf("no answer to opaque %d within %v", opaque, timeout)
		}
	}
}

// forget drops a kept answer, before a request is sent again with the same
// opaque.
func (rc *rawConn) forget(opaque int32) {
	rc.mu.Lock()
	delete(rc.answers, opaque)
	rc.mu.Unlock()
}
