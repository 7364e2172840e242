package broker_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/internal/wait"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// rawSender pipelines one pre-encoded request frame over a plain TCP
// connection and reads the answers into a reused buffer, so that it
// allocates nothing per message: what a test or benchmark counts around it
// is the broker's own cost (plus the few background timers of the process).
type rawSender struct {
	c net.Conn
	r *bufio.Reader
	// ans holds the answers of the last batch, one reused buffer per
	// request in flight. Answers to pipelined sends come back in the order
	// the send workers finish them, not in request order (as from Java's
	// multi-threaded SendMessageExecutor), so no single one is "the last".
	ans  [][]byte
	lens []int  // lens[i] is the length of ans[i]'s answer
	out  []byte // inFlight copies of the frame
}

func newRawSender(tb testing.TB, addr string, frame []byte, inFlight int) *rawSender {
	tb.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	s := &rawSender{c: c, r: bufio.NewReaderSize(c, 64<<10)}
	for range inFlight {
		s.out = append(s.out, frame...)
		s.ans = append(s.ans, make([]byte, 4096))
	}
	s.lens = make([]int, 0, inFlight)
	return s
}

// roundTrips sends n requests, len(out)/len(frame) at a time, and reads
// every answer; the answers of the last batch, as many as it returns, are
// left in s.ans[i][:s.lens[i]], in the order they arrived.
func (s *rawSender) roundTrips(n, inFlight int) (int, error) {
	for n > 0 {
		k := min(n, inFlight)
		if _, err := s.c.Write(s.out[:k*len(s.out)/inFlight]); err != nil {
			return 0, err
		}
		s.lens = s.lens[:0]
		for i := range k {
			var lb [4]byte
			if _, err := io.ReadFull(s.r, lb[:]); err != nil {
				return 0, err
			}
			l := int(binary.BigEndian.Uint32(lb[:]))
			if l+4 > len(s.ans[i]) {
				s.ans[i] = make([]byte, l+4)
			}
			copy(s.ans[i], lb[:])
			if _, err := io.ReadFull(s.r, s.ans[i][4:4+l]); err != nil {
				return 0, err
			}
			s.lens = append(s.lens, l+4)
		}
		n -= k
	}
	return len(s.lens), nil
}

// checkBatch checks that the last batch's answers all stored their
// message on queueID, at the offsets from..to, each exactly once, in
// whatever order they arrived.
func (s *rawSender) checkBatch(queueID int32, from, to int64) error {
	if int64(len(s.lens)) != to-from+1 {
		return fmt.Errorf("%d answers in the last batch, want %d", len(s.lens), to-from+1)
	}
	seen := make(map[int64]bool, len(s.lens))
	for i, l := range s.lens {
		off, err := sendAnswerOffset(s.ans[i][:l], queueID)
		if err != nil {
			return fmt.Errorf("answer %d: %w", i, err)
		}
		if off < from || off > to || seen[off] {
			return fmt.Errorf("answer %d: queue offset %d, want each of %d..%d once (seen %v)", i, off, from, to, seen)
		}
		seen[off] = true
	}
	return nil
}

// sendV2Frame encodes a SEND_MESSAGE_V2 request as the Java client writes
// it (reconsumeTimes included), with a body of size bytes.
func sendV2Frame(tb testing.TB, topic string, queueID int32, size int, st codec.SerializeType) []byte {
	tb.Helper()
	h := sendHeader(topic, queueID, map[string]string{"TAGS": "TagA", "KEYS": "K1", "WAIT": "true",
		"UNIQ_KEY": "7F0000017A6418B4AAC2395B7B3D0000"})
	var reconsumeTimes int32 // the Java client sends "j":"0" with every message
	h.ReconsumeTimes = &reconsumeTimes
	body := make([]byte, size)
	for i := range body {
		body[i] = byte('a' + i%26)
	}
	req := sendRequest(code.SendMessageV2, h, body)
	req.SerializeType = st
	req.Opaque = 1
	f, err := codec.Encode(req)
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

// sendAnswerOffset decodes a successful send answer for queueID and
// returns the queue offset it names.
func sendAnswerOffset(frame []byte, queueID int32) (int64, error) {
	resp, err := codec.Decode(frame)
	if err != nil {
		return 0, err
	}
	if resp.Code != code.Success {
		return 0, fmt.Errorf("code %d remark %q", resp.Code, resp.Remark)
	}
	var rh header.SendMessageResponseHeader
	if err := rh.FromExtFields(resp.ExtFields); err != nil {
		return 0, err
	}
	if rh.QueueID != queueID || rh.MsgID == "" {
		return 0, fmt.Errorf("answer %+v, want queue %d", rh, queueID)
	}
	return rh.QueueOffset, nil
}

// processCPU is the process's user + system CPU time in nanoseconds.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkBrokerSendV2Pipelined is SEND_MESSAGE_V2 of 1 KiB bodies from 16
// connections with 16 requests in flight each (the 16 × 16 load)
// through raw senders that allocate nothing, so allocs/op is the broker's.
func BenchmarkBrokerSendV2Pipelined(b *testing.B) {
	for _, st := range []codec.SerializeType{codec.JSON, codec.RocketMQ} {
		b.Run(st.String(), func(b *testing.B) { benchSendPipelined(b, st) })
	}
	// SYNC_FLUSH: every answer waits for the group commit's fsync.
	b.Run("ROCKETMQ-SYNC_FLUSH", func(b *testing.B) {
		benchSendPipelined(b, codec.RocketMQ, func(_ *broker.BrokerConfig, s *store.MessageStoreConfig) {
			s.FlushDiskType = store.SyncFlush
		})
	})
}

func benchSendPipelined(b *testing.B, st codec.SerializeType, opts ...testutil.BrokerOption) {
	benchSendPipelinedOn(b, testutil.StartBroker(b, "", opts...), st)
}

func benchSendPipelinedOn(b *testing.B, br *broker.Broker, st codec.SerializeType) {
	addr := br.Addr().String()
	const conns, inFlight = 16, 16
	senders := make([]*rawSender, conns)
	for i := range senders {
		senders[i] = newRawSender(b, addr, sendV2Frame(b, "BenchPipe", int32(i%4), 1024, st), inFlight)
		if _, err := senders[i].roundTrips(inFlight, inFlight); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.SetBytes(1024)
	b.ResetTimer()
	start, cpu0 := time.Now(), processCPU()
	var wg sync.WaitGroup
	for i, s := range senders {
		n := b.N / conns
		if i < b.N%conns {
			n++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.roundTrips(n, inFlight); err != nil {
				b.Error(err)
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "msgs/s")
	// Broker and senders share the process; the senders' part is a
	// write and a read per 16 messages.
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/msg")
}

// TestBrokerSendQueuedFromEventLoop: a send reaches the send executor's
// queue straight from the event loop; the remoting pool registered for it
// is not a second hop (its worker would only have moved the request from
// one queue to the other). With every worker of that pool held busy, sends
// are still answered.
func TestBrokerSendQueuedFromEventLoop(t *testing.T) {
	br := testutil.StartBroker(t, "")
	release := make(chan struct{})
	defer close(release)
	for i := range br.Config().SendMessageThreadPoolNums {
		started := make(chan struct{})
		if !br.Pools.Send.Submit(func() { close(started); <-release }) {
			t.Fatalf("pool refused blocker %d", i)
		}
		<-started
	}
	s := newRawSender(t, br.Addr().String(), sendV2Frame(t, "HopTopic", 0, 64, codec.RocketMQ), 4)
	_ = s.c.SetDeadline(time.Now().Add(wait.Scale(5 * time.Second)))
	// Two batches of four: each batch is written once the previous one is
	// answered, so the first holds offsets 0..3 and the second 4..7.
	for batch := range int64(2) {
		if _, err := s.roundTrips(4, 4); err != nil {
			t.Fatalf("sends not answered while the remoting pool is busy: %v", err)
		}
		if err := s.checkBatch(0, 4*batch, 4*batch+3); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBrokerSendConcurrentContent: many senders on several connections,
// each message with its own body, answered in batches that share write
// buffers; every answer must name the queue offset its own message got,
// and every stored message must read back with its own body (a buffer,
// command or task reused too early would mix them up).
func TestBrokerSendConcurrentContent(t *testing.T) {
	br := testutil.StartBroker(t, "")
	addr := br.Addr().String()
	const conns, senders, each = 4, 8, 150
	clients := make([]*remoting.Client, conns)
	for i := range clients {
		clients[i] = newClientTB(t)
	}
	type sent struct {
		queueID int32
		offset  int64
		body    string
	}
	results := make(chan sent, conns*senders*each)
	var wg sync.WaitGroup
	for c := range conns {
		for s := range senders {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					qid := int32((c*senders + s) % 4)
					body := fmt.Sprintf("conn %d sender %d message %d %s", c, s, i, strings.Repeat("x", (c*7+s*13+i)%900))
					h := sendHeader("ContentTopic", qid, map[string]string{"KEYS": body[:24]})
					ctx, cancel := context.WithTimeout(context.Background(), wait.Scale(10*time.Second))
					resp, err := clients[c].InvokeSync(ctx, addr, sendRequest(code.SendMessageV2, h, []byte(body)))
					cancel()
					if err != nil {
						t.Error(err)
						return
					}
					var rh header.SendMessageResponseHeader
					if resp.Code != code.Success || rh.FromExtFields(resp.ExtFields) != nil || rh.QueueID != qid {
						t.Errorf("answer %d %q %v for queue %d", resp.Code, resp.Remark, resp.ExtFields, qid)
						return
					}
					results <- sent{queueID: qid, offset: rh.QueueOffset, body: body}
				}
			}()
		}
	}
	wg.Wait()
	close(results)
	seen := map[[2]int64]bool{}
	for r := range results {
		k := [2]int64{int64(r.queueID), r.offset}
		if seen[k] {
			t.Fatalf("two answers name queue %d offset %d", r.queueID, r.offset)
		}
		seen[k] = true
		if m := readBack(t, br, "ContentTopic", r.queueID, r.offset); string(m.Body) != r.body {
			t.Fatalf("queue %d offset %d holds %.40q, the answer was for %.40q", r.queueID, r.offset, m.Body, r.body)
		}
	}
	if len(seen) != conns*senders*each {
		t.Fatalf("%d answers, want %d", len(seen), conns*senders*each)
	}
}
