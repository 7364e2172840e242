package logging

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/internal/props"
)

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newLogger(t *testing.T, o Options) *zap.Logger {
	t.Helper()
	lg, closeLogs, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := closeLogs(); err != nil {
			t.Error(err)
		}
	})
	return lg
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestLoggingConsoleIsHumanReadable(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	lg := newLogger(t, Options{Format: FormatConsole, Stderr: &buf})
	lg.Named("store").Info("flush commit log", zap.String("topic", "TopicA"), zap.Int32("queueId", 3))
	line := strings.TrimSpace(buf.String())
	if strings.HasPrefix(line, "{") {
		t.Fatalf("console line is JSON: %q", line)
	}
	for _, want := range []string{"INFO", "store", "flush commit log", `"topic": "TopicA"`, `"queueId": 3`} {
		if !strings.Contains(line, want) {
			t.Errorf("console line %q lacks %q", line, want)
		}
	}
	if _, err := time.ParseInLocation("2006-01-02 15:04:05.000", line[:23], time.Local); err != nil {
		t.Errorf("console line does not start with a local timestamp: %q: %v", line, err)
	}
}

func TestLoggingJSONParses(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	lg := newLogger(t, Options{Format: FormatJSON, Stderr: &buf})
	lg.Named("remoting").Warn("close channel", zap.String("remoteAddr", "10.0.0.1:5000"))
	var m map[string]any
	if err := json.Unmarshal([]byte(buf.String()), &m); err != nil {
		t.Fatalf("not one JSON line: %q: %v", buf.String(), err)
	}
	want := map[string]any{"level": "warn", "logger": "remoting", "msg": "close channel", "remoteAddr": "10.0.0.1:5000"}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %v, want %v (line %v)", k, m[k], v, m)
		}
	}
	if _, ok := m["ts"].(float64); !ok {
		t.Errorf("no numeric ts: %v", m)
	}
}

func TestLoggingAutoFormat(t *testing.T) {
	// Not parallel: sets JOURNAL_STREAM.
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	t.Setenv("JOURNAL_STREAM", "")
	// A file or a pipe (log shipper, container runtime) gets JSON.
	lg := newLogger(t, Options{Stderr: f})
	lg.Info("to a file")
	if got := readFile(t, f.Name()); !strings.HasPrefix(got, "{") {
		t.Fatalf("auto format to a plain file is not JSON: %q", got)
	}
	// The systemd journal is read by people through journalctl: console.
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if st, ok := journalID(fi); ok {
		t.Setenv("JOURNAL_STREAM", st)
		lg = newLogger(t, Options{Stderr: f})
		lg.Info("to the journal")
		lines := strings.Split(strings.TrimSpace(readFile(t, f.Name())), "\n")
		if last := lines[len(lines)-1]; strings.HasPrefix(last, "{") || !strings.Contains(last, "to the journal") {
			t.Fatalf("auto format to the journal is not console: %q", last)
		}
	}
	var buf syncBuffer
	newLogger(t, Options{Stderr: &buf}).Info("to a buffer")
	if !strings.HasPrefix(buf.String(), "{") {
		t.Fatalf("auto format to a non-file writer is not JSON: %q", buf.String())
	}
}

func TestLoggingLevelFilters(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		level string
		want  string // first letters of the levels that get through
	}{{"debug", "DIWE"}, {"", "IWE"}, {"info", "IWE"}, {"WARN", "WE"}, {"error", "E"}} {
		t.Run(tc.level, func(t *testing.T) {
			t.Parallel()
			var buf syncBuffer
			lg := newLogger(t, Options{Format: FormatJSON, Level: tc.level, Stderr: &buf})
			lg.Debug("d")
			lg.Info("i")
			lg.Warn("w")
			lg.Error("e")
			var got string
			for line := range strings.SplitSeq(strings.TrimSpace(buf.String()), "\n") {
				var m map[string]any
				if err := json.Unmarshal([]byte(line), &m); err != nil {
					t.Fatalf("%q: %v", line, err)
				}
				got += strings.ToUpper(m["msg"].(string))
			}
			if got != tc.want {
				t.Errorf("level %q let through %q, want %q", tc.level, got, tc.want)
			}
		})
	}
}

func TestLoggingRejectsBadOptions(t *testing.T) {
	t.Parallel()
	for _, o := range []Options{{Format: "xml"}, {Level: "trace"}} {
		if _, _, err := New(o); !errors.Is(err, ErrBadOption) {
			t.Errorf("New(%+v) = %v, want ErrBadOption", o, err)
		}
	}
}

func TestLoggingFilesSplitAsApache(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "rocketmqlogs")
	var stderr syncBuffer
	lg := newLogger(t, Options{Dir: dir, Stderr: &stderr})
	lg.Info("broker root line")
	lg.Named("topic").Info("topic manager line")
	lg.Named("store").Named("commitlog").Info("commitlog line", zap.Int64("commitLogOffset", 42))
	lg.Named("store").Named("index").Info("index line")
	lg.Named("ha").Info("ha line")
	lg.Named("remoting").Named("gnet").Warn("gnet line")
	lg.Named("transaction").Info("transaction line")
	lg.Named("stats").Info("stats line")
	lg.Named("broker").Named("client").Named("rebalance").Info("lock line")
	lg.Named("namesrv").Named("remoting").Info("embedded namesrv line")
	lg.Named("store").With(zap.String("brokerName", "broker-a")).Error("store error line")
	lg.Debug("debug line")

	want := map[string][]string{
		"broker.log":      {"broker root line", "topic manager line"},
		"store.log":       {"commitlog line", "commitLogOffset", "index line", "ha line", "store error line", "broker-a"},
		"remoting.log":    {"gnet line"},
		"transaction.log": {"transaction line"},
		"stats.log":       {"stats line"},
		"lock.log":        {"lock line"},
		"namesrv.log":     {"embedded namesrv line"},
	}
	for name, lines := range want {
		got := readFile(t, filepath.Join(dir, name))
		for _, l := range lines {
			if !strings.Contains(got, l) {
				t.Errorf("%s lacks %q:\n%s", name, l, got)
			}
		}
		if strings.HasPrefix(got, "{") {
			t.Errorf("%s is not console lines: %q", name, got)
		}
	}
	if got := readFile(t, filepath.Join(dir, "broker.log")); strings.Contains(got, "commitlog line") || strings.Contains(got, "debug line") {
		t.Errorf("broker.log has store or debug lines:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "watermark.log")); !os.IsNotExist(err) {
		t.Errorf("unused watermark.log created: %v", err)
	}
	// With files on, stderr keeps only errors.
	if got := stderr.String(); !strings.Contains(got, "store error line") || strings.Contains(got, "broker root line") {
		t.Errorf("stderr = %q, want only the error", got)
	}
}

func TestLoggingFilesNamesrvRole(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lg := newLogger(t, Options{Dir: dir, Role: RoleNamesrv, Format: FormatJSON, Stderr: &syncBuffer{}})
	lg.Named("remoting").Info("remoting line")
	lg.Named("routeinfo").Info("route line")
	got := readFile(t, filepath.Join(dir, "namesrv.log"))
	for line := range strings.SplitSeq(strings.TrimSpace(got), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("namesrv.log line %q is not JSON: %v", line, err)
		}
	}
	if !strings.Contains(got, "remoting line") || !strings.Contains(got, "route line") {
		t.Errorf("namesrv.log = %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "remoting.log")); !os.IsNotExist(err) {
		t.Errorf("name server wrote remoting.log: %v", err)
	}
}

func TestLoggingFilesRotateAsLogback(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const max = 16 << 10
	lg, closeLogs, err := New(Options{Dir: dir, MaxFileSize: max, Format: FormatJSON, Stderr: &syncBuffer{}})
	if err != nil {
		t.Fatal(err)
	}
	pad := strings.Repeat("x", 200)
	// ~330 B a line, ~50 lines a file: stats.log (maxIndex 5) rolls ~10 times.
	for i := range 64*8 + 10 {
		lg.Named("stats").Info(fmt.Sprint("padding ", i), zap.Int("i", i), zap.String("pad", pad)) // distinct: not sampled
	}
	if err := closeLogs(); err != nil { // waits for the archives
		t.Fatal(err)
	}
	live := readFile(t, filepath.Join(dir, "stats.log"))
	if len(live) > max || !strings.Contains(live, `"i":521`) {
		t.Errorf("stats.log holds %d bytes (max %d) and must end with the last line", len(live), max)
	}
	ents, err := os.ReadDir(filepath.Join(dir, "otherdays"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if want := "stats.1.log.gz stats.2.log.gz stats.3.log.gz stats.4.log.gz stats.5.log.gz"; strings.Join(names, " ") != want {
		t.Fatalf("otherdays/ = %v, want %s", names, want)
	}
	// Window order: .1 is the newest archive, each holds whole lines under max.
	prevFirst := -1
	for i := 1; i <= 5; i++ {
		text := gunzip(t, filepath.Join(dir, "otherdays", fmt.Sprintf("stats.%d.log.gz", i)))
		lines := strings.Split(strings.TrimSpace(text), "\n")
		if len(text) > max {
			t.Errorf("stats.%d.log.gz holds %d bytes, max %d", i, len(text), max)
		}
		var first, last map[string]any
		if json.Unmarshal([]byte(lines[0]), &first) != nil || json.Unmarshal([]byte(lines[len(lines)-1]), &last) != nil {
			t.Fatalf("stats.%d: broken lines", i)
		}
		if prevFirst >= 0 && int(last["i"].(float64)) != prevFirst-1 {
			t.Errorf("stats.%d ends at line %v, want %d (just before stats.%d)", i, last["i"], prevFirst-1, i-1)
		}
		prevFirst = int(first["i"].(float64))
	}
}

func gunzip(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestLoggingConfFileUnderFlags(t *testing.T) {
	t.Parallel()
	var o Options
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	o.RegisterFlags(fs)
	if err := fs.Parse([]string{"-logLevel", "warn"}); err != nil {
		t.Fatal(err)
	}
	f := o.FileOptions()
	if w := props.Bind(map[string]string{"logLevel": "debug", "logFormat": "json", "logDir": "/var/log/rmq", "logFile": "true"}, f); len(w) != 0 {
		t.Fatalf("warnings %v", w)
	}
	o.ApplyFile(f, fs)
	want := Options{Format: "json", Level: "warn", Dir: "/var/log/rmq", File: true}
	if o != want {
		t.Errorf("options %+v, want %+v (flags over the file over defaults)", o, want)
	}
}

func TestLoggingDirDefaultsToUserHome(t *testing.T) {
	// Not parallel: sets HOME.
	home := t.TempDir()
	t.Setenv("HOME", home)
	if got, want := DefaultDir(), filepath.Join(home, "logs", "rocketmqlogs"); got != want {
		t.Fatalf("DefaultDir() = %q, want %q", got, want)
	}
	for _, o := range []Options{{File: true}, {Dir: "~/logs/rocketmqlogs"}} {
		o.Stderr = &syncBuffer{}
		newLogger(t, o).Info("line")
		if got := readFile(t, filepath.Join(DefaultDir(), "broker.log")); !strings.Contains(got, "line") {
			t.Errorf("%+v: broker.log = %q", o, got)
		}
	}
}

func TestLoggingSamplesARepeatedLine(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	lg := newLogger(t, Options{Format: FormatJSON, Stderr: &buf})
	for i := range 1000 {
		lg.Warn("the topic not exist", zap.Int("i", i))
	}
	lg.Warn("another line")
	// 100 a second, then every 100th: at most ~110, ~210 across a second tick.
	if n := strings.Count(buf.String(), "the topic not exist"); n < 100 || n > 250 {
		t.Errorf("1000 identical warnings logged %d times", n)
	}
	if !strings.Contains(buf.String(), "another line") {
		t.Error("a different line was sampled away")
	}
	if !strings.Contains(buf.String(), `"caller":"logging/logging_test.go:`) {
		t.Errorf("no caller: %.200s", buf.String())
	}
}
