package timer

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/internal/message"
)

// BenchmarkTimerThroughput: b.N timer messages are scheduled (Rewrite +
// PutMessage into rmq_sys_wheel_timer, as the send path does) and then
// delivered by a running Service to their real topic. Reports scheduled/s
// and delivered/s (ingest from the timer queue + re-put).
func BenchmarkTimerThroughput(b *testing.B) {
	dir := b.TempDir()
	st := openStore(b, dir)
	defer closeStore(b, st)
	body := make([]byte, 128)
	now := time.Now()
	b.ReportAllocs()
	b.ResetTimer()
	t0 := time.Now()
	for i := range b.N {
		p := message.ParseHashMapProperties("")
		p.Put(message.PropertyUniqClientMessageIDKeyidx, "K"+strconv.Itoa(i))
		p.Put(PropertyDelayMs, "1")
		m := &message.MessageExt{Message: message.Message{Topic: "BenchT", Body: body}, QueueID: 1,
			PropertiesString: p.String(), BornTimestamp: now.UnixMilli(), BornHost: testHost, StoreHost: testHost}
		if Rewrite(m, now, testCfg) != Rewritten {
			b.Fatal("not rewritten")
		}
		if r := st.PutMessage(m); r.Status.String() != "PUT_OK" {
			b.Fatal(r.Status)
		}
	}
	scheduled := time.Since(t0)
	t1 := time.Now()
	s := NewService(st, Options{CheckpointPath: filepath.Join(dir, "timercheck"), Logger: zap.NewNop()})
	s.Start()
	for {
		if _, d := s.Stats(); d == int64(b.N) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	delivered := time.Since(t1)
	b.StopTimer()
	if err := s.Stop(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/scheduled.Seconds(), "scheduled/s")
	b.ReportMetric(float64(b.N)/delivered.Seconds(), "delivered/s")
}
