package remoting

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"net"
	"slices"
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
// each, against the gnet server (processor on a pool, or inline on the event
// loop) and against a goroutine-per-connection
// net.Conn server doing the same decode/answer/encode work; compare the
// req/s metrics of the two sub-benchmarks.
func BenchmarkRemotingRoundTrip(b *testing.B) {
	b.Run("gnet", func(b *testing.B) {
		s, stop := startBenchGnet(b, false)
		defer stop()
		driveLoadGnet(b, s)
	})
	b.Run("gnetinline", func(b *testing.B) {
		s, stop := startBenchGnet(b, true)
		defer stop()
		driveLoadGnet(b, s)
	})
	b.Run("netbaseline", func(b *testing.B) {
		addr, stop := startBenchBaseline(b)
		defer stop()
		driveLoad(b, addr)
	})
	// The machine is shared and noisy: alternate short rounds against both
	// servers and report the median of the per-round ratios.
	b.Run("ratio", func(b *testing.B) {
		gs, gStop := startBenchGnet(b, false)
		defer gStop()
		is, iStop := startBenchGnet(b, true)
		defer iStop()
		gAddr, iAddr := gs.Addr().String(), is.Addr().String()
		nAddr, nStop := startBenchBaseline(b)
		defer nStop()
		for range b.N {
			var ratios, iratios, gs, is, ns []float64
			for range 5 {
				g := measureLoad(b, gAddr, 20000, nil)
				i := measureLoad(b, iAddr, 20000, nil)
				n := measureLoad(b, nAddr, 20000, nil)
				gs, is, ns = append(gs, g), append(is, i), append(ns, n)
				ratios, iratios = append(ratios, g/n), append(iratios, i/n)
			}
			b.ReportMetric(median(gs), "gnet-req/s")
			b.ReportMetric(median(is), "inline-req/s")
			b.ReportMetric(median(ns), "net-req/s")
			b.ReportMetric(median(ratios), "gnet/net")
			b.ReportMetric(median(iratios), "inline/net")
		}
	})
}

func median(v []float64) float64 {
	slices.Sort(v)
	return v[len(v)/2]
}

// startBenchGnet serves HEART_BEAT with an empty SUCCESS, through a pool or
// inline on the event loop.
func startBenchGnet(b *testing.B, inline bool) (*Server, func()) {
	cfg := NewNettyServerConfig()
	cfg.ListenAddr = "127.0.0.1:0"
	s, err := NewServer(cfg, nil)
	if err != nil {
		b.Fatal(err)
	}
	answer := func(*Context, *codec.RemotingCommand) (*codec.RemotingCommand, error) {
		return codec.NewResponse(code.Success, ""), nil
	}
	var p Processor = ProcessorFunc(answer)
	if inline {
		p = InlineProcessorFunc(answer)
	}
	s.RegisterProcessor(code.HeartBeat, p, NewPool("bench", 8, 10000))
	if err := s.Start(); err != nil {
		b.Fatal(err)
	}
	return s, func() { _ = s.Shutdown(context.Background()) }
}

func startBenchBaseline(b *testing.B) (string, func()) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); serveBaseline(ln) }()
	return ln.Addr().String(), func() { _ = ln.Close(); wg.Wait() }
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

// driveLoad sends b.N requests and reports req/s.
func driveLoad(b *testing.B, addr string) {
	b.ReportAllocs()
	b.ResetTimer()
	b.ReportMetric(measureLoad(b, addr, b.N, nil), "req/s")
}

// driveLoadGnet is driveLoad plus the server's socket writes per answer.
func driveLoadGnet(b *testing.B, s *Server) {
	b.ReportAllocs()
	b.ResetTimer()
	var writes uint64
	count := func() {
		for _, ch := range s.Channels() {
			writes += ch.writes.Load()
		}
	}
	b.ReportMetric(measureLoad(b, s.Addr().String(), b.N, count), "req/s")
	b.ReportMetric(float64(writes)/float64(b.N), "writes/req")
}

// measureLoad sends total requests spread over benchConns connections, waits
// for every response and returns requests per second; answered, when set,
// runs once every answer has arrived, before the connections close.
func measureLoad(b *testing.B, addr string, total int, answered func()) float64 {
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
	start := time.Now()
	var wg sync.WaitGroup
	for i, c := range conns {
		n := total / benchConns
		if i < total%benchConns {
			n++
		}
		wg.Add(1)
		go func() { defer wg.Done(); pipeline(b, c, frame, n) }()
	}
	wg.Wait()
	rate := float64(total) / time.Since(start).Seconds()
	if answered != nil {
		answered()
	}
	return rate
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
