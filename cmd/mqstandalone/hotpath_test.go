package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/apache/rocketmq-client-go/v2/rlog"

	"github.com/rocketmq-go/rmq/internal/testutil"
)

// clockLine matches the lines the broker writes on a timer whatever the
// traffic: stats.log's reports ("Stats In One Minute", "Stats Every 5
// Minutes"…), one per statistics key at each minute, hour or day boundary,
// store.log's and broker.log's once-a-minute store TPS and dispatch lines,
// and watermark.log's [WATERMARK] lines, one per request queue every second
// from 10 s after start. How many land in a window depends on the wall
// clock: a minute boundary inside the consume window added about 40 lines
// (1 in 3 loaded -race runs of ./cmd/...), and a run slower than 10 s adds
// 4 a second.
var clockLine = regexp.MustCompile(`\] Stats (In One |Every 5 Minutes)|\[WATERMARK\] |\[STORETPS\]|findPutMessageEntireTimePX|\[PAGECACHERT\]|dispatch behind commit log`)

// logLines counts the lines in the live log files under dir (archives in
// otherdays/ excluded), less the clock-driven ones, and keeps each file's
// text for failure messages.
func logLines(t *testing.T, dir string) (int, map[string]string) {
	t.Helper()
	n, text := 0, map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		n += bytes.Count(b, []byte("\n"))
		n -= len(clockLine.FindAllIndex(b, -1))
		text[filepath.Base(path)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n, text
}

// TestStandaloneNoLogLinePerMessage sends and consumes many messages through
// the official Go client with Info logging to files and checks that the log
// grows by a bounded number of lines, not by one or more per message, send
// or pull request.
func TestStandaloneNoLogLinePerMessage(t *testing.T) {
	rlog.SetLogLevel("error")
	const msgs = 600
	logDir := t.TempDir()
	conf := fmt.Sprintf("listenPort=0\nbrokerIP1=127.0.0.1\nstorePathRootDir=%s\nmappedFileSizeCommitLog=67108864\n", t.TempDir())
	f := filepath.Join(t.TempDir(), "broker.conf")
	if err := os.WriteFile(f, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan int, 1)
	var out, errOut testutil.SyncBuffer
	go func() {
		done <- run([]string{"-nsport", "0", "-c", f, "-logDir", logDir, "-logLevel", "info"}, &out, &errOut, stop)
	}()
	t.Cleanup(func() {
		close(stop)
		if rc := <-done; rc != 0 {
			t.Errorf("exit %d: %s", rc, errOut.String())
		}
	})
	var nsAddr string
	testutil.Eventually(t, 20*time.Second, func() error {
		if m := nsLine.FindStringSubmatch(out.String()); m != nil && bytes.Contains([]byte(out.String()), []byte("The broker[")) {
			nsAddr = m[1]
			return nil
		}
		return fmt.Errorf("not started: %q", out.String())
	})
	p, err := producer.NewDefaultProducer(producer.WithNsResolver(primitive.NewPassthroughResolver([]string{nsAddr})),
		producer.WithGroupName("hotpath_pg"))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = p.Shutdown() }()
	send := func() {
		r, err := p.SendSync(t.Context(), primitive.NewMessage("HotPathTopic", []byte("hello")))
		if err != nil || r.Status != primitive.SendOK {
			t.Fatalf("send: %+v %v", r, err)
		}
	}
	send() // connects, creates the topic: logged once
	before, _ := logLines(t, logDir)
	for range msgs - 1 {
		send()
	}
	afterSend, text := logLines(t, logDir)
	if grown := afterSend - before; grown > 10 {
		t.Fatalf("%d sends added %d log lines: %v", msgs-1, grown, text)
	}

	var got atomic.Int64
	c, err := consumer.NewPushConsumer(consumer.WithNsResolver(primitive.NewPassthroughResolver([]string{nsAddr})),
		consumer.WithGroupName("hotpath_cg"), consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Subscribe("HotPathTopic", consumer.MessageSelector{}, func(_ context.Context, m ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
		got.Add(int64(len(m)))
		return consumer.ConsumeSuccess, nil
	}); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 30*time.Second, func() error {
		if n := got.Load(); n < msgs {
			return fmt.Errorf("consumed %d of %d", n, msgs)
		}
		return nil
	})
	_ = testutil.ShutdownSettled(started, c.Shutdown)
	afterConsume, text := logLines(t, logDir)
	// Registering, rebalancing and leaving log a handful of lines; a line per
	// pull request (msgs/32 of them at least) or per message would not fit.
	if grown := afterConsume - afterSend; grown > 15 {
		t.Fatalf("consuming %d messages added %d log lines: %v", msgs, grown, text)
	}
	t.Logf("log lines: %d at start, +%d for %d sends, +%d for consuming them", before, afterSend-before, msgs-1, afterConsume-afterSend)
}

// TestStandaloneLogLinesSkipClockLines pins logLines: stats.log's reports
// and watermark.log's lines are not counted, any other line of any file is.
func TestStandaloneLogLinesSkipClockLines(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"stats.log": "2026-12-01 19:13:00.058 INFO broker.stats [TOPIC_PUT_NUMS] [T] Stats In One Minute, SUM: 0 TPS: 0.00 AVGPT: 0.00\n" +
			"2026-12-01 19:13:00.385 INFO broker.stats [GROUP_GET_FALL_SIZE] [0@T@g] Stats Every 5 Minutes, Value: 172\n" +
			"2026-12-01 20:00:00.001 INFO broker.stats [TOPIC_PUT_NUMS] [T] Stats In One Hour, SUM: 0 TPS: 0.00 AVGPT: 0.00\n" +
			"2026-12-01 20:00:00.002 INFO broker.stats some other line\n",
		"broker.log": "a\nb\n",
		"watermark.log": "2026-12-01 19:39:29.649 INFO broker.watermark [WATERMARK] Send Queue Size: 0 SlowTimeMills: 0\n" +
			"2026-12-01 19:39:29.649 INFO broker.watermark [WATERMARK] Pull Queue Size: 0 SlowTimeMills: 0\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := logLines(t, dir); n != 3 {
		t.Fatalf("counted %d lines, want 3 (2 in broker.log, 1 in stats.log besides its reports)", n)
	}
}
