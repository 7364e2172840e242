package ha

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/broker/store/commitlog"
)

// benchPair is a master (role) and a connected slave, both with 64 MiB
// CommitLog files, ASYNC_FLUSH.
func benchPair(b *testing.B, role store.BrokerRole) (*testNode, *testNode) {
	master := startBenchNode(b, role)
	slave := startBenchNode(b, store.Slave)
	slave.ha.UpdateMasterAddress(master.haAddr())
	deadline := time.Now().Add(10 * time.Second)
	for len(master.ha.SlaveAckOffsets()) == 0 || master.ha.SlaveAckOffsets()[firstKey(master.ha.SlaveAckOffsets())] < 0 {
		if time.Now().After(deadline) {
			b.Fatal("slave did not connect")
		}
		time.Sleep(time.Millisecond)
	}
	return master, slave
}

func startBenchNode(b *testing.B, role store.BrokerRole) *testNode {
	n := newNode(b, "", role)
	n.cfg.MappedFileSizeCommitLog = 64 << 20
	n.cfg.MappedFileSizeConsumeQueue = 300000 * 20
	n.cfg.MaxHashSlotNum = 500000
	n.cfg.MaxIndexNum = 2000000
	n.open()
	return n
}

func firstKey(m map[string]int64) string {
	for k := range m {
		return k
	}
	return ""
}

// runSenders sends with 64 goroutines for b.N messages of 1 KiB and
// returns the messages per second and the statuses other than PUT_OK.
func runSenders(b *testing.B, st store.MessageStore, h *Service, senders int) (float64, int64) {
	var next, failed atomic.Int64
	payload := body(0, 1024)
	var wg sync.WaitGroup
	start := time.Now()
	for g := 0; g < senders; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for next.Add(1) <= int64(b.N) {
				if r := st.PutMessage(newMsg("TopicBench", int32(g%8), payload)); r.Status != commitlog.PutOK {
					failed.Add(1)
				}
				h.NotifyAppend() // the broker does this for every dispatched message

			}
		}(g)
	}
	wg.Wait()
	return float64(b.N) / time.Since(start).Seconds(), failed.Load()
}

// warmUp writes 1000 messages and waits for the slave: both sides then
// have their first CommitLog file mapped, so file creation is not measured.
func warmUp(b *testing.B, master, slave *testNode) {
	for i := 0; i < 1000; i++ {
		master.st.PutMessage(newMsg("TopicWarm", 0, body(i, 1024)))
	}
	master.ha.NotifyAppend()
	deadline := time.Now().Add(30 * time.Second)
	for slave.st.MaxPhyOffset() < master.st.MaxPhyOffset() {
		if time.Now().After(deadline) {
			b.Fatal("slave did not catch up during warm-up")
		}
		time.Sleep(time.Millisecond)
	}
}

// BenchmarkHASendTPS compares SYNC_MASTER (each send waits for the slave's
// acknowledgement) with ASYNC_MASTER at 64 concurrent senders, store level
// (no client network hop), 1 KiB messages.
func BenchmarkHASendTPS(b *testing.B) {
	for _, role := range []store.BrokerRole{store.AsyncMaster, store.SyncMaster} {
		b.Run(string(role), func(b *testing.B) {
			master, slave := benchPair(b, role)
			warmUp(b, master, slave)
			b.SetBytes(1024)
			b.ResetTimer()
			tps, failed := runSenders(b, master.st, master.ha, 64)
			b.StopTimer()
			if failed > 0 {
				b.Fatalf("%d sends not PUT_OK", failed)
			}
			b.ReportMetric(tps, "msgs/s")
		})
	}
}

// BenchmarkHASyncMasterLatency is one SYNC_MASTER put at a time (1 KiB):
// ns/op is the whole wake-up chain, master append -> HA writer -> slave
// append and report -> master reader -> the waiting put.
func BenchmarkHASyncMasterLatency(b *testing.B) {
	master, slave := benchPair(b, store.SyncMaster)
	warmUp(b, master, slave)
	b.SetBytes(1024)
	b.ResetTimer()
	if _, failed := runSenders(b, master.st, master.ha, 1); failed > 0 {
		b.Fatalf("%d sends not PUT_OK", failed)
	}
}

// BenchmarkHAReplicationLag measures how far the slave trails an
// ASYNC_MASTER under a sustained 1 KiB load (1, 8 and 64 senders; Java's
// sendMessageThreadPoolNums default is 1): bytes behind and milliseconds
// behind (time since the master reached the offset the slave has now),
// sampled every millisecond. Master and slave share the machine's CPUs.
func BenchmarkHAReplicationLag(b *testing.B) {
	for _, n := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("senders=%d", n), func(b *testing.B) { benchLag(b, n) })
	}
}

func benchLag(b *testing.B, senders int) {
	master, slave := benchPair(b, store.AsyncMaster)
	warmUp(b, master, slave)
	type sample struct {
		at  time.Time
		off int64
	}
	var (
		mu      sync.Mutex
		samples []sample
		lagB    []int64
		lagMs   []float64
		stop    = make(chan struct{})
		done    = make(chan struct{})
	)
	go func() {
		defer close(done)
		tk := time.NewTicker(time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-stop:
				return
			case now := <-tk.C:
				m, s := master.st.MaxPhyOffset(), slave.st.MaxPhyOffset()
				mu.Lock()
				samples = append(samples, sample{now, m})
				i := sort.Search(len(samples), func(i int) bool { return samples[i].off >= s })
				lagB = append(lagB, m-s)
				if i < len(samples) {
					lagMs = append(lagMs, float64(now.Sub(samples[i].at).Microseconds())/1000)
				}
				mu.Unlock()
			}
		}
	}()
	b.SetBytes(1024)
	b.ResetTimer()
	tps, failed := runSenders(b, master.st, master.ha, senders)
	b.StopTimer()
	close(stop)
	<-done
	if failed > 0 {
		b.Fatalf("%d sends failed", failed)
	}
	end, t0 := master.st.MaxPhyOffset(), time.Now()
	for slave.st.MaxPhyOffset() < end {
		time.Sleep(100 * time.Microsecond)
	}
	b.ReportMetric(float64(time.Since(t0).Microseconds())/1000, "catchUpMs")
	b.ReportMetric(tps, "msgs/s")
	b.ReportMetric(percentile(lagB, 0.5), "lagBytes-p50")
	b.ReportMetric(percentile(lagB, 0.99), "lagBytes-p99")
	b.ReportMetric(percentileF(lagMs, 0.5), "lagMs-p50")
	b.ReportMetric(percentileF(lagMs, 0.99), "lagMs-p99")
}

func percentile(v []int64, p float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]int64(nil), v...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return float64(s[int(p*float64(len(s)-1))])
}

func percentileF(v []float64, p float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[int(p*float64(len(s)-1))]
}

// BenchmarkHACatchUp measures raw replication throughput: a slave attached
// to a master already holding b.N 1 KiB messages copies them all.
func BenchmarkHACatchUp(b *testing.B) {
	master := startBenchNode(b, store.AsyncMaster)
	runSenders(b, master.st, master.ha, 8)
	slave := startBenchNode(b, store.Slave)
	end := master.st.MaxPhyOffset()
	b.SetBytes(end / int64(b.N))
	b.ResetTimer()
	slave.ha.UpdateMasterAddress(master.haAddr())
	for slave.st.MaxPhyOffset() < end {
		time.Sleep(100 * time.Microsecond)
	}
	b.StopTimer()
}

// BenchmarkHAReplicationLatency is one 1 KiB put at a time on an
// otherwise idle ASYNC_MASTER: the time until the slave holds it.
func BenchmarkHAReplicationLatency(b *testing.B) {
	master, slave := benchPair(b, store.AsyncMaster)
	warmUp(b, master, slave)
	payload := body(0, 1024)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		master.st.PutMessage(newMsg("TopicBench", 0, payload))
		master.ha.NotifyAppend()
		end := master.st.MaxPhyOffset()
		for slave.st.MaxPhyOffset() < end {
			time.Sleep(20 * time.Microsecond)
		}
	}
}
