package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/broker/store/mmap"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/wait"
)

// TestStoreDispatchStallAtRollRecovers: the consume queue cannot create
// its second file (a directory sits at its path). Puts are accepted until
// the dispatcher has failed dispatchMaxRetries times, then refused; the
// stall is described by DispatchError and the runtime info. Once the file
// can be created the dispatcher writes the unit it was stuck on, puts are
// accepted again, and the queue holds every accepted message in order.
func TestStoreDispatchStallAtRollRecovers(t *testing.T) {
	t.Parallel()
	cfg := smallConfig(t)
	block := filepath.Join(cfg.ConsumeQueueDir(), "StallT", "0", mmap.OffsetToFileName(int64(cfg.MappedFileSizeConsumeQueue)))
	if err := os.MkdirAll(block, 0o755); err != nil {
		t.Fatal(err)
	}
	s := startStore(t, cfg, WithDispatchRetry(time.Millisecond, 10*time.Millisecond))
	var accepted []string
	put := func() commitlog.PutMessageStatus {
		body := fmt.Sprintf("m%d", len(accepted))
		r := s.PutMessage(newMsg("StallT", 0, "", "", []byte(body)))
		if r.Status == commitlog.PutOK {
			accepted = append(accepted, body)
		}
		return r.Status
	}
	pollUntil(t, 20*time.Second, func() error {
		switch st := put(); st {
		case commitlog.PutOK:
			return errors.New("put still accepted")
		case commitlog.ServiceNotAvailable:
			return nil
		default:
			t.Fatalf("put: %v", st)
			return nil
		}
	})
	perFile := cfg.MappedFileSizeConsumeQueue / 20
	if len(accepted) <= perFile {
		t.Fatalf("refused after %d puts; the first file holds %d units", len(accepted), perFile)
	}
	de := s.DispatchError()
	if !strings.Contains(de, "consume queue StallT-0 cannot be written") || !strings.Contains(de, "sends refused") {
		t.Fatalf("DispatchError %q", de)
	}
	if info := s.RuntimeInfo(); info["dispatchError"] != de || s.DispatchBehindBytes() <= 0 {
		t.Fatalf("runtime dispatchError %q, behind %d", info["dispatchError"], s.DispatchBehindBytes())
	}
	if got := s.MaxOffsetInQueue("StallT", 0); got != int64(perFile) {
		t.Fatalf("queue holds %d units while stalled, want %d", got, perFile)
	}

	if err := os.Remove(block); err != nil {
		t.Fatal(err)
	}
	pollUntil(t, 20*time.Second, func() error {
		if st := put(); st != commitlog.PutOK {
			return fmt.Errorf("put: %v", st)
		}
		return nil
	})
	waitDispatched(t, s)
	if de := s.DispatchError(); de != "" {
		t.Fatalf("DispatchError after recovery %q", de)
	}
	var got []string
	for off := int64(0); off < s.MaxOffsetInQueue("StallT", 0); {
		r := s.GetMessage("g", "StallT", 0, off, 32, nil)
		if r == nil || r.Status != Found {
			t.Fatalf("get at %d: %+v", off, r)
		}
		for _, raw := range r.Messages {
			m, err := message.DecodeRecords(raw, true)
			if err != nil || len(m) != 1 {
				t.Fatalf("decode at %d: %v", off, err)
			}
			got = append(got, string(m[0].Body))
		}
		off = r.NextBeginOffset
	}
	if strings.Join(got, ",") != strings.Join(accepted, ",") {
		t.Fatalf("queue holds %v, accepted %v", got, accepted)
	}
}

// pollUntil calls f until it returns nil or timeout (scaled for -race)
// passes (testutil.Eventually, which imports this package).
func pollUntil(t *testing.T, timeout time.Duration, f func() error) {
	t.Helper()
	deadline := time.Now().Add(wait.Scale(timeout))
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %v", timeout, err)
		}
		time.Sleep(time.Millisecond)
	}
}
