package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/apache/rocketmq-client-go/v2/rlog"

	"github.com/rocketmq-go/rmq/internal/testutil"
)

var nsLine = regexp.MustCompile(`Name Server boot success\. serializeType=JSON, listening on (\S+)`)

func TestStandaloneGoClientProduces(t *testing.T) {
	rlog.SetLogLevel("error")
	dir := t.TempDir()
	conf := fmt.Sprintf("listenPort=0\nbrokerIP1=127.0.0.1\nstorePathRootDir=%s\nmappedFileSizeCommitLog=67108864\n", dir)
	f := filepath.Join(t.TempDir(), "broker.conf")
	if err := os.WriteFile(f, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan int, 1)
	var out, errOut testutil.SyncBuffer
	go func() { done <- run([]string{"-nsport", "0", "-c", f}, &out, &errOut, stop) }()
	var nsAddr string
	testutil.Eventually(t, 20*time.Second, func() error {
		select {
		case rc := <-done:
			t.Fatalf("exited %d: %s %s", rc, out.String(), errOut.String())
		default:
		}
		m := nsLine.FindStringSubmatch(out.String())
		if m == nil || !bytes.Contains([]byte(out.String()), []byte("The broker[")) {
			return fmt.Errorf("not started: %q", out.String())
		}
		nsAddr = m[1]
		return nil
	})
	p, err := producer.NewDefaultProducer(
		producer.WithNsResolver(primitive.NewPassthroughResolver([]string{nsAddr})),
		producer.WithGroupName("standalone_pg"),
	)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	// TopicTest does not exist: the producer falls back to TBW102's route and
	// the broker auto-creates it, as with the Java quick start.
	for i := range 3 {
		r, err := p.SendSync(t.Context(), primitive.NewMessage("TopicTest", []byte(fmt.Sprint("hello ", i))))
		if err != nil || r.Status != primitive.SendOK {
			t.Fatalf("send %d: %+v %v", i, r, err)
		}
	}
	_ = p.Shutdown()
	close(stop)
	select {
	case rc := <-done:
		if rc != 0 {
			t.Fatalf("exit %d: %s", rc, errOut.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no exit")
	}
	if _, err := os.Stat(filepath.Join(dir, "config", "topics.json")); err != nil {
		t.Fatalf("topics.json not persisted: %v", err)
	}
}

func TestStandaloneLogFilesSplitNamesrvAndBroker(t *testing.T) {
	logDir := t.TempDir()
	conf := fmt.Sprintf("listenPort=0\nbrokerIP1=127.0.0.1\nstorePathRootDir=%s\nmappedFileSizeCommitLog=67108864\n", t.TempDir())
	f := filepath.Join(t.TempDir(), "broker.conf")
	if err := os.WriteFile(f, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan int, 1)
	var out, errOut testutil.SyncBuffer
	go func() { done <- run([]string{"-nsport", "0", "-c", f, "-logDir", logDir}, &out, &errOut, stop) }()
	testutil.Eventually(t, 20*time.Second, func() error {
		select {
		case rc := <-done:
			t.Fatalf("exited %d: %s %s", rc, out.String(), errOut.String())
		default:
		}
		if !bytes.Contains([]byte(out.String()), []byte("The broker[")) {
			return fmt.Errorf("not started: %q", out.String())
		}
		return nil
	})
	close(stop)
	if rc := <-done; rc != 0 {
		t.Fatalf("exit %d: %s", rc, errOut.String())
	}
	want := map[string]string{"namesrv.log": "name server started", "store.log": "store", "remoting.log": "remoting server started"}
	for name, line := range want {
		b, err := os.ReadFile(filepath.Join(logDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte(line)) || bytes.HasPrefix(b, []byte("{")) {
			t.Errorf("%s lacks console line %q:\n%s", name, line, b)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(logDir, "remoting.log")); bytes.Contains(b, []byte("namesrv")) {
		t.Errorf("embedded name server lines in remoting.log:\n%s", b)
	}
}
