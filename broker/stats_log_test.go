package broker_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/stats"
	"github.com/rocketmq-go/rmq/internal/logging"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
	"go.uber.org/zap/zaptest"
)

// TestBrokerStatsLogTopicPutNums: with file logging into a directory and a
// short stats schedule, known sends show up in stats.log (and only there)
// as BrokerStatsManager's minute line with the right SUM and AVGPT.
func TestBrokerStatsLogTopicPutNums(t *testing.T) {
	dir := t.TempDir()
	lg, closeLogs, err := logging.New(logging.Options{Dir: dir, Format: logging.FormatConsole, Stderr: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = closeLogs() })
	sch := stats.Schedule{Seconds: 500 * time.Millisecond, Minutes: time.Hour, Hour: time.Hour,
		PrintMinute: 100 * time.Millisecond, PrintHour: time.Hour, PrintDay: 24 * time.Hour, PrintMoment: 100 * time.Millisecond,
		WaterMark: 50 * time.Millisecond, DispatchBehind: 100 * time.Millisecond}
	b := startBrokerWithOptions(t, broker.Options{Logger: lg, StatsSchedule: &sch})
	c := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t).Named("client"))
	t.Cleanup(func() { _ = c.Shutdown(t.Context()) })
	e := &consumeEnv{t: t, b: b, c: c, addr: b.Addr().String()}
	const topic, n = "StatsLogTopic", 5
	for range n {
		e.send(topic, 0, nil, "hello")
	}
	want := regexp.MustCompile(`\[TOPIC_PUT_NUMS\] \[` + topic + `\] Stats In One Minute, SUM: 5 TPS: \d+\.\d\d AVGPT: 1\.00\n`)
	statsLog := filepath.Join(dir, "stats.log")
	testutil.Eventually(t, 10*time.Second, func() error {
		data, err := os.ReadFile(statsLog)
		if err != nil {
			return err
		}
		if !want.Match(data) {
			return fmt.Errorf("stats.log has no %s line:\n%s", want, tail(data))
		}
		return nil
	})
	data, _ := os.ReadFile(statsLog)
	for _, line := range []string{"[TOPIC_PUT_SIZE] [" + topic + "] Stats In One Minute, SUM: ",
		"[BROKER_PUT_NUMS] [DefaultCluster] Stats In One Minute, SUM: "} {
		if !strings.Contains(string(data), line) {
			t.Errorf("stats.log lacks %q", line)
		}
	}
	// BrokerController's own lines: the four queue watermarks in
	// watermark.log, the dispatch backlog in broker.log.
	testutil.Eventually(t, 10*time.Second, func() error {
		wm, err := os.ReadFile(filepath.Join(dir, "watermark.log"))
		if err != nil {
			return err
		}
		for _, q := range []string{"Send", "Pull", "Query", "Transaction"} {
			if l := "[WATERMARK] " + q + " Queue Size: 0 SlowTimeMills: 0\n"; !strings.Contains(string(wm), l) {
				return fmt.Errorf("watermark.log lacks %q:\n%s", l, tail(wm))
			}
		}
		bl, err := os.ReadFile(filepath.Join(dir, "broker.log"))
		if err != nil {
			return err
		}
		if !strings.Contains(string(bl), "dispatch behind commit log 0 bytes\n") {
			return fmt.Errorf("broker.log lacks the dispatch backlog line:\n%s", tail(bl))
		}
		if strings.Contains(string(bl), "Stats In One") || strings.Contains(string(bl), "[WATERMARK]") {
			return fmt.Errorf("stats or watermark lines leaked into broker.log")
		}
		return nil
	})
}

// tail is the last lines of a log for a failure message.
func tail(data []byte) string {
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	return strings.Join(lines[max(0, len(lines)-10):], "\n")
}
