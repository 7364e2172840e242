package store

import (
	"strings"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker/store/commitlog"
)

func TestStoreStatsDistributionAndLatency(t *testing.T) {
	boot := time.Unix(1_700_000_000, 0)
	st := newStoreStats(boot)
	if st.distString() != "null" || st.latency(0.99) != "0.00" {
		t.Fatalf("first minute: %q %q", st.distString(), st.latency(0.99))
	}
	ok := commitlog.PutMessageResult{Status: commitlog.PutOK, Append: commitlog.AppendMessageResult{WroteBytes: 100}}
	for _, ms := range []int64{0, 5, 9, 10, 49, 50, 9999, 10000} {
		st.putDone("T", ok, time.Duration(ms)*time.Millisecond)
	}
	for i := 0; i < 92; i++ {
		st.putDone("T", ok, 3*time.Millisecond)
	}
	st.sample(boot.Add(61 * time.Second)) // rotates the minute
	want := "[<=0ms]:1 [0~10ms]:94 [10~50ms]:2 [50~100ms]:1 [100~200ms]:0 [200~500ms]:0 [500ms~1s]:0 " +
		"[1~2s]:0 [2~3s]:0 [3~4s]:0 [4~5s]:0 [5~10s]:1 [10s~]:1 "
	if got := st.distString(); got != want {
		t.Fatalf("dist\n got %q\nwant %q", got, want)
	}
	// 100 puts: index 99 lands in the (9000,10000] bucket holding 2 puts
	if got := st.latency(0.99); got != "9500.00" {
		t.Fatalf("p99 %s", got)
	}
	if st.putTimes.Load() != 100 || st.putMaxMs.Load() != 10000 {
		t.Fatalf("totals %d max %d", st.putTimes.Load(), st.putMaxMs.Load())
	}
	if r := st.runtime(boot.Add(26*time.Hour + 3*time.Minute + 4*time.Second)); r != "[ 1 days, 2 hours, 3 minutes, 4 seconds ]" {
		t.Fatalf("runtime %q", r)
	}
	if !strings.HasPrefix(javaDouble(2), "2.0") || javaDouble(0.5) != "0.5" {
		t.Fatal("javaDouble")
	}
}
