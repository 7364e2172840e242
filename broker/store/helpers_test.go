package store

import (
	"context"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/broker/store/storecheck"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/wait"
)

// goldenDir finds the golden data (env RMQ_GOLDEN_DIR or ../shared/golden
// from the repo root) or skips.
func goldenDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("RMQ_GOLDEN_DIR"); d != "" {
		return d
	}
	wd, _ := os.Getwd()
	for d := wd; d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			g := filepath.Join(filepath.Dir(d), "shared", "golden")
			if _, err := os.Stat(g); err == nil {
				return g
			}
			break
		}
	}
	t.Skip("golden data absent: set RMQ_GOLDEN_DIR or put it at ../shared/golden")
	return ""
}

// copyGoldenStore copies store-clean/store into a writable temp dir.
func copyGoldenStore(t testing.TB) string {
	t.Helper()
	g := goldenDir(t)
	dst := filepath.Join(t.TempDir(), "store")
	if err := os.CopyFS(dst, os.DirFS(filepath.Join(g, "store-clean", "store"))); err != nil {
		t.Fatal(err)
	}
	err := filepath.WalkDir(dst, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.Chmod(p, 0o755)
		}
		return os.Chmod(p, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// goldenConfig is the golden broker's store geometry (broker.properties).
func goldenConfig(root string) *MessageStoreConfig {
	cfg := NewMessageStoreConfig()
	cfg.StorePathRootDir = root
	cfg.MappedFileSizeCommitLog = 1 << 20
	cfg.MappedFileSizeConsumeQueue = 2000
	cfg.MaxHashSlotNum = 64
	cfg.MaxIndexNum = 256
	cfg.FileReservedTime = 48
	return cfg
}

// smallConfig is a fresh store with small files.
func smallConfig(t testing.TB) *MessageStoreConfig {
	cfg := goldenConfig(filepath.Join(t.TempDir(), "store"))
	cfg.MappedFileSizeCommitLog = 64 << 10
	cfg.MappedFileSizeConsumeQueue = 20 * 20
	return cfg
}

// startStore opens and starts a store, shutting it down and running the
// consistency checker at cleanup.
func startStore(t testing.TB, cfg *MessageStoreConfig, opts ...Option) *DefaultMessageStore {
	t.Helper()
	s := openStore(t, cfg, opts...)
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	return s
}

func openStore(t testing.TB, cfg *MessageStoreConfig, opts ...Option) *DefaultMessageStore {
	t.Helper()
	s, err := Open(cfg, zaptest.NewLogger(t), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Shutdown(context.Background()); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		checkConsistent(t, cfg)
	})
	return s
}

// checkConsistent runs storecheck over the store directory.
func checkConsistent(t testing.TB, cfg *MessageStoreConfig) {
	t.Helper()
	errs := storecheck.Check(storecheck.Config{Root: cfg.StorePathRootDir, CommitLogDir: cfg.CommitLogDir(),
		CommitLogFileSize: cfg.MappedFileSizeCommitLog, ConsumeQueueFileSize: cfg.MappedFileSizeConsumeQueue,
		HashSlotNum: cfg.MaxHashSlotNum, IndexNum: cfg.MaxIndexNum})
	for _, e := range errs {
		t.Errorf("storecheck: %v", e)
	}
}

func shutdownStore(t testing.TB, s *DefaultMessageStore) {
	t.Helper()
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}

var bornHost = netip.MustParseAddrPort("192.0.2.2:50000")
var storeHost = netip.MustParseAddrPort("127.0.0.1:10911")

var uniqSeq atomic.Int64

// newMsg builds a message as the send processor would hand it to the store.
func newMsg(topic string, queueID int32, tags, keys string, body []byte) *message.MessageExt {
	props := map[string]string{message.PropertyUniqClientMessageIDKeyidx: "UNIQ" + itoa(uniqSeq.Add(1))}
	if tags != "" {
		props[message.PropertyTags] = tags
	}
	if keys != "" {
		props[message.PropertyKeys] = keys
	}
	m := &message.MessageExt{
		Message:        message.Message{Topic: topic, Body: body, Properties: props},
		QueueID:        queueID,
		BornTimestamp:  time.Now().UnixMilli(),
		BornHost:       bornHost,
		StoreHost:      storeHost,
		SysFlag:        0,
		ReconsumeTimes: 0,
	}
	m.PropertiesString = message.MarshalProperties(props)
	return m
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func mustPut(t testing.TB, s *DefaultMessageStore, m *message.MessageExt) commitlog.PutMessageResult {
	t.Helper()
	r := s.PutMessage(m)
	if r.Status != commitlog.PutOK {
		t.Fatalf("put %s: %v", m.Topic, r.Status)
	}
	return r
}

// waitDispatched polls until the dispatcher has caught up.
func waitDispatched(t testing.TB, s *DefaultMessageStore) {
	t.Helper()
	deadline := time.Now().Add(wait.Scale(10 * time.Second))
	for s.DispatchBehindBytes() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("dispatch still %d bytes behind", s.DispatchBehindBytes())
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// tagFilter accepts units whose tags code is in codes.
type tagFilter map[int64]bool

func (f tagFilter) IsMatchedByConsumeQueue(tagsCode int64, _ *CqExtUnit) bool { return f[tagsCode] }
func (f tagFilter) IsMatchedByCommitLog([]byte, map[string]string) bool       { return true }

// propFilter rejects by content.
type propFilter struct{ want string }

func (f propFilter) IsMatchedByConsumeQueue(int64, *CqExtUnit) bool { return true }
func (f propFilter) IsMatchedByCommitLog(msg []byte, _ map[string]string) bool {
	m, err := message.DecodeRecord(msg, false)
	return err == nil && m.Properties["color"] == f.want
}
