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

// TestStoreStatsPrintTpsLines: once a minute the 1 s sampler hands back
// StoreStatsService.printTps's store.log lines about the minute that ended.
func TestStoreStatsPrintTpsLines(t *testing.T) {
	boot := time.Unix(1_700_000_000, 0)
	st := newStoreStats(boot)
	ok := commitlog.PutMessageResult{Status: commitlog.PutOK, Append: commitlog.AppendMessageResult{WroteBytes: 100, MsgNum: 1}}
	var printed [][]string
	for i := 1; i <= 121; i++ {
		if i <= 60 {
			st.putDone("T", ok, 5*time.Millisecond) // one put a second for the first minute
		}
		if lines := st.sample(boot.Add(time.Duration(i) * time.Second)); lines != nil {
			printed = append(printed, lines)
		}
	}
	if len(printed) != 1 {
		t.Fatalf("printed %d times in 121 s, want once (after 60 s): %q", len(printed), printed)
	}
	want := []string{
		// 61 samples: the first (1 put) to the last (60 puts), 60 s apart.
		"[STORETPS] put_tps 0.9833333333333333 get_found_tps 0.0 get_miss_tps 0.0 get_transfered_tps 0.0",
		"findPutMessageEntireTimePX 0.99=4.98ms cost 0ms", // 59 of 60 into the (4, 5] ms bucket
		"findPutMessageEntireTimePX 0.999=4.98ms cost 0ms",
		"[PAGECACHERT] TotalPut 60, PutMessageDistributeTime [<=0ms]:0 [0~10ms]:60 [10~50ms]:0 [50~100ms]:0 [100~200ms]:0 " +
			"[200~500ms]:0 [500ms~1s]:0 [1~2s]:0 [2~3s]:0 [3~4s]:0 [4~5s]:0 [5~10s]:0 [10s~]:0 ",
	}
	if strings.Join(printed[0], "\n") != strings.Join(want, "\n") {
		t.Fatalf("lines\n%s\nwant\n%s", strings.Join(printed[0], "\n"), strings.Join(want, "\n"))
	}
	// The next minute: no puts.
	for i := 122; i <= 200; i++ {
		if lines := st.sample(boot.Add(time.Duration(i) * time.Second)); lines != nil {
			if lines[0] != "[STORETPS] put_tps 0.0 get_found_tps 0.0 get_miss_tps 0.0 get_transfered_tps 0.0" {
				t.Fatalf("second minute %q", lines[0])
			}
			return
		}
	}
	t.Fatal("no second print")
}
