package ha

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"net/netip"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/broker/store/storecheck"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/wait"
)

// testCommitLogFileSize is small so replication crosses file boundaries.
const testCommitLogFileSize = 64 << 10

func storeConfig(dir string, role store.BrokerRole) *store.MessageStoreConfig {
	cfg := store.NewMessageStoreConfig()
	cfg.StorePathRootDir = dir
	cfg.StorePathCommitLog = ""
	cfg.MappedFileSizeCommitLog = testCommitLogFileSize
	cfg.MappedFileSizeConsumeQueue = 20 * 100
	cfg.MaxHashSlotNum = 64
	cfg.MaxIndexNum = 256
	cfg.BrokerRole = role
	cfg.SyncFlushTimeout = 1000
	return cfg
}

// testNode is one store with its HA service.
type testNode struct {
	t   testing.TB
	dir string
	cfg *store.MessageStoreConfig
	st  *store.DefaultMessageStore
	ha  *Service
	// transferStarts counts the master's "ha transfer starts" log entries:
	// the writer has fixed where a slave's stream begins. Nothing else
	// exposes that moment, and a test that writes before it races Java's
	// "an empty slave gets the master's last file" rule.
	transferStarts atomic.Int32
}

func haConfig(cfg *store.MessageStoreConfig) Config {
	c := ConfigFromStore(cfg, "127.0.0.1")
	c.ListenAddr = "127.0.0.1:0"
	c.ReconnectInterval = 50 * time.Millisecond
	return c
}

// startNode opens the store in dir (a fresh temp dir when "") with role and
// starts its HA service; both stop at cleanup, then storecheck runs.
func startNode(t testing.TB, dir string, role store.BrokerRole, adjust ...func(*Config)) *testNode {
	t.Helper()
	n := newNode(t, dir, role)
	n.open(adjust...)
	return n
}

// newNode prepares a node without opening it.
func newNode(t testing.TB, dir string, role store.BrokerRole) *testNode {
	if dir == "" {
		dir = filepath.Join(t.TempDir(), "store")
	}
	return &testNode{t: t, dir: dir, cfg: storeConfig(dir, role)}
}

func (n *testNode) open(adjust ...func(*Config)) {
	t := n.t
	t.Helper()
	lg := zaptest.NewLogger(t, zaptest.WrapOptions(zap.Hooks(func(e zapcore.Entry) error {
		if e.Message == "ha transfer starts" {
			n.transferStarts.Add(1)
		}
		return nil
	})))
	st, err := store.Open(n.cfg, lg.Named("store"))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Start(); err != nil {
		t.Fatal(err)
	}
	hc := haConfig(n.cfg)
	for _, a := range adjust {
		a(&hc)
	}
	h, err := New(st, hc, lg.Named("ha"))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	n.st, n.ha = st, h
	t.Cleanup(n.stop)
}

// stop shuts the HA service and the store down (idempotent) and checks the
// store directory.
func (n *testNode) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := n.ha.Shutdown(ctx); err != nil {
		n.t.Errorf("ha shutdown: %v", err)
	}
	if err := n.st.Shutdown(ctx); err != nil {
		n.t.Errorf("store shutdown: %v", err)
	}
	errs := storecheck.Check(storecheck.Config{Root: n.dir, CommitLogDir: n.cfg.CommitLogDir(),
		CommitLogFileSize: n.cfg.MappedFileSizeCommitLog, ConsumeQueueFileSize: n.cfg.MappedFileSizeConsumeQueue,
		HashSlotNum: n.cfg.MaxHashSlotNum, IndexNum: n.cfg.MaxIndexNum})
	for _, e := range errs {
		n.t.Errorf("storecheck %s: %v", n.dir, e)
	}
}

func (n *testNode) haAddr() string { return n.ha.Addr().String() }

var uniqSeq atomic.Int64

func newMsg(topic string, queueID int32, body []byte) *message.MessageExt {
	props := map[string]string{message.PropertyUniqClientMessageIDKeyidx: "UNIQ" + strconv.FormatInt(uniqSeq.Add(1), 10)}
	m := &message.MessageExt{
		Message:       message.Message{Topic: topic, Body: body, Properties: props},
		QueueID:       queueID,
		BornTimestamp: time.Now().UnixMilli(),
		BornHost:      netip.MustParseAddrPort("192.0.2.2:50000"),
		StoreHost:     netip.MustParseAddrPort("127.0.0.1:10911"),
	}
	m.PropertiesString = message.MarshalProperties(props)
	return m
}

func body(i, size int) []byte {
	b := bytes.Repeat([]byte{byte('a' + i%26)}, size)
	copy(b, strconv.Itoa(i))
	return b
}

// putN appends n messages spread over 4 queues of topic and returns the
// statuses.
func putN(t *testing.T, st store.MessageStore, topic string, from, n, size int) []commitlog.PutMessageStatus {
	t.Helper()
	out := make([]commitlog.PutMessageStatus, 0, n)
	for i := from; i < from+n; i++ {
		out = append(out, st.PutMessage(newMsg(topic, int32(i%4), body(i, size))).Status)
	}
	return out
}

func mustPutN(t *testing.T, st store.MessageStore, topic string, from, n, size int) {
	t.Helper()
	for i, s := range putN(t, st, topic, from, n, size) {
		if s != commitlog.PutOK {
			t.Fatalf("put %d: %v", from+i, s)
		}
	}
}

// commitLogBytes reads the CommitLog from..to through the store.
func commitLogBytes(t *testing.T, st store.MessageStore, from, to int64) []byte {
	t.Helper()
	var out []byte
	for off := from; off < to; {
		buf := st.GetCommitLogData(off)
		if buf == nil {
			t.Fatalf("no CommitLog data at %d (max %d)", off, st.MaxPhyOffset())
		}
		n := min(int64(buf.Size()), to-off)
		out = append(out, buf.Bytes[:n]...)
		buf.Release()
		off += n
	}
	return out
}

// waitReplicated polls until the slave's CommitLog equals the master's.
func waitReplicated(t *testing.T, master, slave store.MessageStore, from int64) {
	t.Helper()
	wait.Eventually(t, 10*time.Second, func() error {
		if m, s := master.MaxPhyOffset(), slave.MaxPhyOffset(); m != s {
			return fmt.Errorf("slave at %d, master at %d", s, m)
		}
		if slave.DispatchBehindBytes() > 0 {
			return fmt.Errorf("slave dispatch %d bytes behind", slave.DispatchBehindBytes())
		}
		if master.DispatchBehindBytes() > 0 { // sameQueues compares both sides' queues next
			return fmt.Errorf("master dispatch %d bytes behind", master.DispatchBehindBytes())
		}
		return nil
	})
	max := master.MaxPhyOffset()
	if !bytes.Equal(commitLogBytes(t, master, from, max), commitLogBytes(t, slave, from, max)) {
		t.Fatal("slave CommitLog bytes differ from the master's")
	}
}

// sameQueues checks every queue of topic serves the same messages on both.
func sameQueues(t *testing.T, master, slave store.MessageStore, topic string) {
	t.Helper()
	for q := int32(0); q < 4; q++ {
		if a, b := master.MaxOffsetInQueue(topic, q), slave.MaxOffsetInQueue(topic, q); a != b {
			t.Fatalf("queue %d: master max %d, slave max %d", q, a, b)
		}
		for off := slave.MinOffsetInQueue(topic, q); off < master.MaxOffsetInQueue(topic, q); {
			a := master.GetMessage("g", topic, q, off, 32, nil)
			b := slave.GetMessage("g", topic, q, off, 32, nil)
			if a == nil || b == nil || a.Status != store.Found || b.Status != store.Found {
				t.Fatalf("queue %d offset %d: master %v slave %v", q, off, status(a), status(b))
			}
			if !bytes.Equal(a.Body, b.Body) {
				t.Fatalf("queue %d offset %d: bodies differ", q, off)
			}
			off = a.NextBeginOffset
		}
	}
}

func status(r *store.GetMessageResult) string {
	if r == nil {
		return "nil"
	}
	return r.Status.String()
}

// uniqKeys returns the UNIQ_KEY of every message in the 4 queues of topic.
func uniqKeys(t *testing.T, st store.MessageStore, topic string) []string {
	t.Helper()
	var out []string
	for q := int32(0); q < 4; q++ {
		for off := st.MinOffsetInQueue(topic, q); off >= 0 && off < st.MaxOffsetInQueue(topic, q); {
			r := st.GetMessage("g", topic, q, off, 32, nil)
			if r == nil || r.Status != store.Found {
				t.Fatalf("queue %d offset %d: %v", q, off, status(r))
			}
			ms, err := message.DecodeRecords(r.Body, true)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range ms {
				out = append(out, m.Properties[message.PropertyUniqClientMessageIDKeyidx])
			}
			off = r.NextBeginOffset
		}
	}
	return out
}

// queryKey is a QUERY_MESSAGE by key: the bodies found on st.
func queryKey(t *testing.T, st store.MessageStore, topic, key string) [][]byte {
	t.Helper()
	var out [][]byte
	for _, rec := range st.QueryMessage(topic, key, 32, 0, math.MaxInt64).Messages {
		m, err := message.DecodeRecord(rec, true)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m.Body)
	}
	return out
}
