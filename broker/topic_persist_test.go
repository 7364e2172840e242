package broker_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// startQuietBroker starts a broker without logging (benchmarks: the
// per-topic log lines would dominate) on the given store configuration.
func startQuietBroker(tb testing.TB, cfg *broker.BrokerConfig, scfg *store.MessageStoreConfig) *broker.Broker {
	tb.Helper()
	srv := broker.NewNettyServerConfig()
	srv.ListenPort, srv.ListenAddr = 0, "127.0.0.1:0"
	b, err := broker.New(cfg, scfg, broker.Options{ServerConfig: srv, FastListenAddr: "127.0.0.1:0"})
	if err != nil {
		tb.Fatalf("broker.New: %v", err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := b.Shutdown(ctx); err != nil {
			tb.Errorf("broker.Shutdown: %v", err)
		}
	})
	if err := b.Start(); err != nil {
		tb.Fatalf("broker.Start: %v", err)
	}
	return b
}

// createTopics sends UPDATE_AND_CREATE_TOPIC for prefix0..prefix<n-1>
// from conc concurrent callers and fails on any answer but SUCCESS.
func createTopics(tb testing.TB, c *remoting.Client, addr, prefix string, n, conc int) {
	tb.Helper()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				resp, err := c.InvokeSync(ctx, addr, createTopicReq(fmt.Sprintf("%s%d", prefix, i), 4))
				cancel()
				if err != nil || resp.Code != code.Success {
					tb.Errorf("create %s%d: %v %+v", prefix, i, err, resp)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// fileTopics reads topics.json of a stopped or running broker.
func fileTopics(t *testing.T, path string) map[string]body.TopicConfig {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	norm, err := body.Normalize(data)
	if err != nil {
		t.Fatal(err)
	}
	var w body.TopicConfigSerializeWrapper
	if err := json.Unmarshal(norm, &w); err != nil {
		t.Fatalf("decode topics.json: %v", err)
	}
	return w.TopicConfigTable
}

func missingTopics(have map[string]body.TopicConfig, prefix string, n int) []string {
	var missing []string
	for i := range n {
		if _, ok := have[fmt.Sprintf("%s%d", prefix, i)]; !ok {
			missing = append(missing, fmt.Sprintf("%s%d", prefix, i))
		}
	}
	return missing
}

// TestBrokerTopicPersistGroupCommit: topics created by
// UPDATE_AND_CREATE_TOPIC (answered once journaled, see
// TestBrokerConfigChangesSurviveCrash) reach topics.json itself within the
// coalescing interval, with many concurrent creators or one; topics
// auto-created by sends too; after shutdown and a restart on the same
// store every topic is there.
func TestBrokerTopicPersistGroupCommit(t *testing.T) {
	t.Parallel()
	cfg, scfg := testutil.NewBrokerConfigs(t, "")
	b := testutil.StartBrokerWith(t, cfg, scfg)
	c := newClientTB(t)
	addr := b.Addr().String()
	path := filepath.Join(scfg.ConfigDir(), "topics.json")
	inFile := func(prefix string, n int) {
		t.Helper()
		testutil.Eventually(t, 10*time.Second, func() error {
			if missing := missingTopics(fileTopics(t, path), prefix, n); len(missing) > 0 {
				return fmt.Errorf("acknowledged topics not yet in topics.json: %v", missing)
			}
			return nil
		})
	}

	createTopics(t, c, addr, "GroupCommit", 300, 16)
	inFile("GroupCommit", 300)
	createTopics(t, c, addr, "Single", 5, 1)
	inFile("Single", 5)
	// A send auto-creates its topic; the file follows within the interval.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	resp, err := c.InvokeSync(ctx, addr, sendRequest(code.SendMessageV2, sendHeader("AutoByPersistSend", 0, nil), []byte("x")))
	cancel()
	if err != nil || resp.Code != code.Success {
		t.Fatalf("send: %v %+v", err, resp)
	}
	testutil.Eventually(t, 10*time.Second, func() error {
		if _, ok := fileTopics(t, path)["AutoByPersistSend"]; !ok {
			return fmt.Errorf("auto-created topic not yet in topics.json")
		}
		return nil
	})

	shutdownBroker(t, b)
	have := fileTopics(t, path)
	if missing := append(missingTopics(have, "GroupCommit", 300), missingTopics(have, "Single", 5)...); len(missing) > 0 {
		t.Fatalf("topics missing from topics.json after shutdown: %v", missing)
	}
	b2 := testutil.StartBrokerWith(t, cfg, scfg)
	cc := newCMClient(t, b2.Addr().String(), "admin")
	after := allTopics(t, cc)
	if missing := append(missingTopics(after, "GroupCommit", 300), missingTopics(after, "Single", 5)...); len(missing) > 0 {
		t.Fatalf("topics missing after restart: %v", missing)
	}
	if _, ok := after["AutoByPersistSend"]; !ok {
		t.Fatal("auto-created topic missing after restart")
	}
}

func shutdownBroker(t *testing.T, b *broker.Broker) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := b.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
}

// TestBrokerSubscriptionGroupPersistGroupCommit: the same for
// UPDATE_AND_CREATE_SUBSCRIPTIONGROUP and subscriptionGroup.json.
func TestBrokerSubscriptionGroupPersistGroupCommit(t *testing.T) {
	t.Parallel()
	cfg, scfg := testutil.NewBrokerConfigs(t, "")
	b := testutil.StartBrokerWith(t, cfg, scfg)
	c := newClientTB(t)
	addr := b.Addr().String()
	path := filepath.Join(scfg.ConfigDir(), "subscriptionGroup.json")
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				g := fmt.Sprintf("PersistGroup%d_%d", w, i)
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				resp, err := c.InvokeSync(ctx, addr, codec.NewRequest(code.UpdateAndCreateSubscriptiongroup, nil,
					[]byte(`{"groupName":"`+g+`"}`)))
				cancel()
				if err != nil || resp.Code != code.Success {
					t.Errorf("create group %s: %v %+v", g, err, resp)
					return
				}
			}
		}()
	}
	wg.Wait()
	check := func(when string) error {
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for w := range 8 {
			for i := range 25 {
				if g := fmt.Sprintf(`"PersistGroup%d_%d"`, w, i); !strings.Contains(string(data), g) {
					return fmt.Errorf("%s: group %s missing from subscriptionGroup.json", when, g)
				}
			}
		}
		return nil
	}
	// Answered once journaled; the file itself follows within the interval.
	testutil.Eventually(t, 10*time.Second, func() error { return check("before shutdown") })
	shutdownBroker(t, b)
	if err := check("after shutdown"); err != nil {
		t.Fatal(err)
	}
	b2 := testutil.StartBrokerWith(t, cfg, scfg)
	if _, ok := b2.Subscriptions().Get("PersistGroup7_24"); !ok {
		t.Fatal("group missing after restart")
	}
}

// BenchmarkBrokerCreateTopics measures creating 5,000 topics through
// UPDATE_AND_CREATE_TOPIC on a fresh broker, from 1, 16, 64 and 256
// concurrent callers; it reports seconds per 5,000 topics. Each answer
// waits for its journal append only; the whole-file rewrites run behind.
func BenchmarkBrokerCreateTopics(b *testing.B) {
	const n = 5000
	for _, conc := range []int{1, 16, 64, 256} {
		b.Run(fmt.Sprintf("callers=%d", conc), func(b *testing.B) {
			var total time.Duration
			for range b.N {
				b.StopTimer()
				cfg, scfg := testutil.NewBrokerConfigs(b, "")
				br := startQuietBroker(b, cfg, scfg)
				c := newClientTB(b)
				b.StartTimer()
				start := time.Now()
				createTopics(b, c, br.Addr().String(), "Bench", n, conc)
				total += time.Since(start)
			}
			secs := total.Seconds() / float64(b.N)
			b.ReportMetric(secs, "s/5000topics")
			b.Logf("created %d topics with %d callers in %.2f s", n, conc, secs)
		})
	}
}
