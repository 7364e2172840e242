package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"

	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// rawConn is one benchmark connection driven by a single goroutine: it keeps
// par requests in flight, and for every batch of responses it reads it sends
// as many new requests in one write. No pending table, no goroutine hand-off:
// the client costs little next to the server it measures.
type rawConn struct {
	conn   net.Conn
	br     *bufio.Reader
	out    []byte
	sent   map[int32]time.Time // opaque → send time
	opaque int32
	next   int // next topic number
	topics int
	lat    []time.Duration
}

func rawLoop(addr string, seed, par, topics int, stop time.Time) ([]time.Duration, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	rc := &rawConn{conn: conn, br: bufio.NewReaderSize(conn, 64<<10), sent: make(map[int32]time.Time, par),
		next: seed, topics: topics, lat: make([]time.Duration, 0, 1<<14)}
	if err := rc.send(par); err != nil {
		return nil, err
	}
	for time.Now().Before(stop) {
		n, err := rc.readSome()
		if err != nil {
			return rc.lat, err
		}
		if err := rc.send(n); err != nil {
			return rc.lat, err
		}
	}
	return rc.lat, nil
}

// send writes n new lookups in one write.
func (rc *rawConn) send(n int) error {
	rc.out = rc.out[:0]
	now := time.Now()
	for range n {
		rc.opaque++
		req := codec.NewRequest(code.GetRouteinfoByTopic, map[string]string{"topic": "BenchTopic" + strconv.Itoa(rc.next%rc.topics)}, nil)
		req.Opaque = rc.opaque
		rc.next++
		var err error
		if rc.out, err = codec.AppendFrame(rc.out, req); err != nil {
			return err
		}
		rc.sent[req.Opaque] = now
	}
	_, err := rc.conn.Write(rc.out)
	return err
}

// readSome reads at least one response and every further one already
// buffered; it returns how many arrived.
func (rc *rawConn) readSome() (int, error) {
	n := 0
	for n == 0 || rc.br.Buffered() >= 4 {
		hdr, err := rc.br.Peek(4)
		if err != nil {
			return n, err
		}
		size := int(binary.BigEndian.Uint32(hdr)) + 4
		if n > 0 && rc.br.Buffered() < size {
			break // the rest of this frame is not here yet: answer what we have
		}
		frame := make([]byte, size)
		if _, err := io.ReadFull(rc.br, frame); err != nil {
			return n, err
		}
		if err := rc.complete(frame); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

func (rc *rawConn) complete(frame []byte) error {
	resp, err := codec.Decode(frame)
	if err != nil {
		return err
	}
	if resp.Code != code.Success || !resp.IsResponse() {
		return fmt.Errorf("opaque %d: code %d %s", resp.Opaque, resp.Code, resp.Remark)
	}
	t0, ok := rc.sent[resp.Opaque]
	if !ok {
		return fmt.Errorf("unexpected opaque %d", resp.Opaque)
	}
	delete(rc.sent, resp.Opaque)
	rc.lat = append(rc.lat, time.Since(t0))
	return nil
}
