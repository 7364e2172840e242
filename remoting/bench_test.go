package remoting

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

const (
	benchConns    = 64
	benchInFlight = 16
)

// BenchmarkRemotingRoundTrip drives 64 connections, 16 requests in flight
// each, against the gnet server and against a goroutine-per-connection
// net.Conn server doing the same decode/answer/encode work; compare the
// req/s metrics of the two sub-benchmarks.
func BenchmarkRemotingRoundTrip(b *testing.B) {
	b.Run("gnet", func(b *testing.B) {
		cfg := NewNettyServerConfig()
		cfg.ListenAddr = "127.0.0.1:0"
		s, err := NewServer(cfg, nil)
		if err != nil {
			b.Fatal(err)
		}
		s.RegisterProcessor(code.HeartBeat, ProcessorFunc(func(*Context, *codec.RemotingCommand) (*codec.RemotingCommand, error) {
			return codec.NewResponse(code.Success, ""), nil
		}), NewPool("bench", 8, 10000))
		if err := s.Start(); err != nil {
			b.Fatal(err)
		}
		defer func() { _ = s.Shutdown(context.Background()) }()
		driveLoad(b, s.Addr().String())
	})
	b.Run("netbaseline", func(b *testing.B) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); serveBaseline(ln) }()
		defer func() { _ = ln.Close(); wg.Wait() }()
		driveLoad(b, ln.Addr().String())
	})
}

// serveBaseline answers every request frame with a SUCCESS frame, one
// goroutine per connection, flushing when no input is buffered.
func serveBaseline(ln net.Listener) {
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer conn.Close()
			br, bw := bufio.NewReaderSize(conn, 64<<10), bufio.NewWriterSize(conn, 64<<10)
			var out []byte
			for {
				frame, err := readFrame(br, codec.DefaultMaxFrameLength)
				if err != nil {
					return
				}
				req, err := codec.Decode(frame)
				if err != nil {
					return
				}
				resp := codec.NewResponse(code.Success, "")
				resp.Opaque, resp.SerializeType = req.Opaque, req.SerializeType
				if out, err = codec.AppendFrame(out[:0], resp); err != nil {
					return
				}
				_, _ = bw.Write(out)
				if br.Buffered() == 0 && bw.Flush() != nil {
					return
				}
			}
		}()
	}
}

// driveLoad sends b.N requests spread over benchConns connections and waits
// for every response.
func driveLoad(b *testing.B, addr string) {
	frame, err := codec.Encode(codec.NewRequest(code.HeartBeat, map[string]string{"clientID": "bench"}, nil))
	if err != nil {
		b.Fatal(err)
	}
	conns := make([]net.Conn, benchConns)
	for i := range conns {
		if conns[i], err = net.Dial("tcp", addr); err != nil {
			b.Fatal(err)
		}
		defer conns[i].Close()
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for i, c := range conns {
		n := b.N / benchConns
		if i < b.N%benchConns {
			n++
		}
		wg.Add(1)
		go func() { defer wg.Done(); pipeline(b, c, frame, n) }()
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
}

// pipeline keeps benchInFlight requests outstanding on c until n are answered.
func pipeline(b *testing.B, c net.Conn, frame []byte, n int) {
	slots := make(chan struct{}, benchInFlight)
	done := make(chan struct{})
	go func() {
		defer close(done)
		br := bufio.NewReaderSize(c, 64<<10)
		var hdr [4]byte
		for range n {
			if _, err := io.ReadFull(br, hdr[:]); err != nil {
				b.Error(err)
				return
			}
			if _, err := br.Discard(int(binary.BigEndian.Uint32(hdr[:]))); err != nil {
				b.Error(err)
				return
			}
			<-slots
		}
	}()
	for range n {
		select {
		case slots <- struct{}{}:
		case <-done:
			return
		}
		if _, err := c.Write(frame); err != nil {
			b.Error(err)
			return
		}
	}
	<-done
}
