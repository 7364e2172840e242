package transaction_test

import (
	"context"
	"encoding/binary"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker/offset"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/broker/topic"
	"github.com/rocketmq-go/rmq/broker/transaction"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
)

// env is a started store with the managers the service uses.
type env struct {
	st     *store.DefaultMessageStore
	offs   *offset.Manager
	topics *topic.Manager
	svc    *transaction.Service
	l      *recorder
}

// recorder is a Listener that remembers what the check pass decided.
type recorder struct {
	mu       sync.Mutex
	checked  []*message.MessageExt
	props    []string
	discards []*message.MessageExt
}

func (r *recorder) ResolveHalfMsg(m *message.MessageExt, p *transaction.Props) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := *m
	r.checked = append(r.checked, &c)
	r.props = append(r.props, p.String())
}

func (r *recorder) ResolveDiscardMsg(m *message.MessageExt, _ *transaction.Props) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.discards = append(r.discards, m)
}

func (r *recorder) counts() (int, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.checked), len(r.discards)
}

var brokerHost = netip.MustParseAddrPort("127.0.0.1:10911")

func newEnv(t *testing.T) *env { return newEnvWith(t, nil, nil) }

// newEnvWith is newEnv with the store configuration adjusted and the
// bridge's store wrapped (either may be nil).
func newEnvWith(t *testing.T, adjust func(*store.MessageStoreConfig), wrap func(*store.DefaultMessageStore) transaction.Store) *env {
	t.Helper()
	dir := t.TempDir()
	cfg := store.NewMessageStoreConfig()
	cfg.StorePathRootDir = dir
	if adjust != nil {
		adjust(cfg)
	}
	lg := zaptest.NewLogger(t)
	st, err := store.Open(cfg, lg)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Shutdown(context.Background()) })
	offs := offset.New(filepath.Join(dir, "config", "consumerOffset.json"), lg)
	topics := topic.New(topic.Options{BrokerClusterName: "c", BrokerName: "b", DefaultTopicQueueNums: 4}, filepath.Join(dir, "config", "topics.json"), lg)
	var bst transaction.Store = st
	if wrap != nil {
		bst = wrap(st)
	}
	br := transaction.NewBridge(transaction.Options{Store: bst, Offsets: offs, Topics: topics,
		StoreHost: func() netip.AddrPort { return brokerHost }, Logger: lg})
	return &env{st: st, offs: offs, topics: topics, svc: transaction.NewService(br), l: &recorder{}}
}

// putHalf stores a half message as the send path does.
func (e *env) putHalf(t *testing.T, extra map[string]string) *message.MessageExt {
	t.Helper()
	p := transaction.ParseProps("")
	for _, kv := range [][2]string{{"KEYS", "k"}, {"TRAN_MSG", "true"}, {"UNIQ_KEY", "U1"}, {"PGROUP", "pg"},
		{"WAIT", "true"}, {"TAGS", "T"}, {"REAL_TOPIC", "RealTopic"}, {"REAL_QID", "2"}} {
		p.Put(kv[0], kv[1])
	}
	for k, v := range extra {
		p.Put(k, v)
	}
	m := &message.MessageExt{Message: message.Message{Topic: transaction.HalfTopic, Body: []byte("half")},
		PropertiesString: p.String(), BornTimestamp: time.Now().UnixMilli(),
		BornHost: netip.MustParseAddrPort("127.0.0.1:5000"), StoreHost: brokerHost}
	res := e.st.PutMessage(m)
	if !res.Status.IsOK() {
		t.Fatalf("put half: %v", res.Status)
	}
	got := e.st.GetMessage("g", transaction.HalfTopic, 0, res.Append.LogicsOffset, 1, nil)
	testutil.Eventually(t, 5*time.Second, func() error {
		got = e.st.GetMessage("g", transaction.HalfTopic, 0, res.Append.LogicsOffset, 1, nil)
		if got == nil || len(got.Messages) != 1 {
			return errString("half not dispatched")
		}
		return nil
	})
	back, err := message.DecodeRecord(got.Messages[0], true)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

type errString string

func (e errString) Error() string { return string(e) }

// checkUntil runs check passes (timeout 0) until cond holds.
func (e *env) checkUntil(t *testing.T, checkMax int, cond func() error) {
	t.Helper()
	testutil.Eventually(t, 5*time.Second, func() error {
		e.svc.Check(context.Background(), 0, checkMax, e.l)
		return cond()
	})
}

// waitDispatched waits until queue 0 of topic holds n messages.
func (e *env) waitDispatched(t *testing.T, topicName string, n int64) {
	t.Helper()
	testutil.Eventually(t, 5*time.Second, func() error {
		if e.st.MaxOffsetInQueue(topicName, 0) < n {
			return errString("not dispatched")
		}
		return nil
	})
}

func (e *env) scanOffsets() (int64, int64) {
	return e.offs.QueryOffset(transaction.ConsumerGroup, transaction.HalfTopic, 0),
		e.offs.QueryOffset(transaction.ConsumerGroup, transaction.OpTopic, 0)
}

// wantOffsets checks the committed scan offsets; an op offset never
// committed (-1) counts as 0, the queue's start, as Java reads it.
func wantOffsets(e *env, half, op int64) func() error {
	return func() error {
		h, o := e.scanOffsets()
		if o == -1 {
			o = 0
		}
		if h != half || o != op {
			return errString("scan offsets half " + strconv.FormatInt(h, 10) + " op " + strconv.FormatInt(o, 10))
		}
		return nil
	}
}

func TestTransactionCheckUnresolvedHalf(t *testing.T) {
	e := newEnv(t)
	e.putHalf(t, nil)
	e.checkUntil(t, 15, func() error {
		if n, _ := e.l.counts(); n == 0 {
			return errString("not checked yet")
		}
		return nil
	})
	c := e.l.checked[0]
	if c.QueueOffset != 1 || c.Topic != transaction.HalfTopic {
		t.Fatalf("check names %s@%d, want the re-put copy at 1", c.Topic, c.QueueOffset)
	}
	if v := message.PropertyValue(e.l.props[0], message.PropertyTransactionCheckTimes); v != "1" {
		t.Fatalf("check times %q", v)
	}
	// The producer commits the copy: its op record settles both queues.
	if !e.svc.DeletePrepareMessage(c) {
		t.Fatal("op write failed")
	}
	e.waitDispatched(t, transaction.OpTopic, 1)
	e.svc.Check(context.Background(), 0, 15, e.l)
	if err := wantOffsets(e, 2, 1)(); err != nil {
		t.Fatal(err)
	}
	if n, d := e.l.counts(); n != 1 || d != 0 {
		t.Fatalf("%d checks %d discards after the commit", n, d)
	}
}

func TestTransactionCheckResolvedBeforeTimeout(t *testing.T) {
	e := newEnv(t)
	half := e.putHalf(t, nil)
	if !e.svc.DeletePrepareMessage(half) {
		t.Fatal("op write failed")
	}
	e.waitDispatched(t, transaction.OpTopic, 1)
	e.checkUntil(t, 15, wantOffsets(e, 1, 1))
	if n, _ := e.l.counts(); n != 0 {
		t.Fatalf("resolved half was checked %d times", n)
	}
}

func TestTransactionCheckNewArrivalWaits(t *testing.T) {
	e := newEnv(t)
	e.putHalf(t, nil)
	e.svc.Check(context.Background(), time.Hour, 15, e.l)
	if n, d := e.l.counts(); n != 0 || d != 0 {
		t.Fatalf("young half: %d checks %d discards", n, d)
	}
	if h, _ := e.scanOffsets(); h > 0 {
		t.Fatalf("scan offset moved past a young half: %d", h)
	}
}

func TestTransactionCheckImmunity(t *testing.T) {
	e := newEnv(t)
	half := e.putHalf(t, map[string]string{message.PropertyCheckImmunityTimeInSeconds: "100"})
	// Within its immunity the half is copied with TRAN_PREPARED_QUEUE_OFFSET
	// and the scan moves on; nobody is asked.
	e.checkUntil(t, 15, wantOffsets(e, 1, 0))
	e.waitDispatched(t, transaction.HalfTopic, 2)
	r := e.st.GetMessage("g", transaction.HalfTopic, 0, 1, 1, nil)
	if r == nil || len(r.Messages) != 1 {
		t.Fatal("no immunity copy")
	}
	cp, _ := message.DecodeRecord(r.Messages[0], true)
	if v := message.PropertyValue(cp.PropertiesString, message.PropertyTransactionPreparedQueueOffset); v != "0" {
		t.Fatalf("copy TRAN_PREPARED_QUEUE_OFFSET %q", v)
	}
	// The original is resolved: the copy is settled by its op record.
	e.svc.DeletePrepareMessage(half)
	e.waitDispatched(t, transaction.OpTopic, 1)
	// Usually one pass; under load the pass's re-put of the copy can be
	// written but not yet confirmed, which stops the walk at the copy until
	// a later pass (see decide), so passes repeat until the scan moves on.
	e.checkUntil(t, 15, wantOffsets(e, 2, 1))
	if n, d := e.l.counts(); n != 0 || d != 0 {
		t.Fatalf("immune half: %d checks %d discards", n, d)
	}
}

func TestTransactionCheckMaxDiscards(t *testing.T) {
	e := newEnv(t)
	e.putHalf(t, map[string]string{message.PropertyTransactionCheckTimes: "3"})
	e.checkUntil(t, 3, wantOffsets(e, 1, 0))
	if n, d := e.l.counts(); n != 0 || d != 1 {
		t.Fatalf("%d checks %d discards, want 0 and 1", n, d)
	}
}

func TestTransactionCheckStopsOnCancel(t *testing.T) {
	e := newEnv(t)
	e.putHalf(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e.svc.Check(ctx, 0, 15, e.l)
	if n, _ := e.l.counts(); n != 0 {
		t.Fatal("a cancelled pass checked")
	}
}

func TestTransactionCheckRequest(t *testing.T) {
	e := newEnv(t)
	half := e.putHalf(t, nil)
	p := transaction.ParseProps(half.PropertiesString)
	h, rec, err := transaction.CheckRequest(half, p)
	if err != nil {
		t.Fatal(err)
	}
	if h.CommitLogOffset != half.CommitLogOffset || h.TranStateTableOffset != 0 || h.MsgID != "U1" ||
		h.TransactionID != "U1" || h.OffsetMsgID != half.MsgID {
		t.Fatalf("header %+v", h)
	}
	m, err := message.DecodeRecord(rec, true)
	if err != nil || m.Topic != "RealTopic" || m.QueueID != 2 || m.PropertiesString != half.PropertiesString ||
		m.CommitLogOffset != half.CommitLogOffset || m.StoreTimestamp != half.StoreTimestamp {
		t.Fatalf("body %+v err %v", m, err)
	}
	p.Remove(message.PropertyRealQueueID)
	if _, _, err := transaction.CheckRequest(half, p); err == nil {
		t.Fatal("missing REAL_QID accepted")
	}
}

// goldenProps returns the properties string of a golden CommitLog record.
func goldenProps(t *testing.T, off int64) string {
	t.Helper()
	dir := os.Getenv("RMQ_GOLDEN_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "golden")
	}
	data, err := os.ReadFile(filepath.Join(dir, "store-clean", "store", "commitlog", "00000000000000000000"))
	if err != nil {
		t.Skipf("golden store absent: %v", err)
	}
	m, err := message.DecodeRecord(data[off:off+int64(binary.BigEndian.Uint32(data[off:]))], false)
	if err != nil {
		t.Fatal(err)
	}
	return m.PropertiesString
}

// TestTransactionPropsGolden: the check service's re-put of the golden
// tx-unknown half (6082 → 7370) and the op record properties (6421) are
// rendered as Apache 4.9.8 wrote them.
func TestTransactionPropsGolden(t *testing.T) {
	p := transaction.ParseProps(goldenProps(t, 6082))
	p.Put(message.PropertyTransactionCheckTimes, "1")
	if got, want := p.String(), goldenProps(t, 7370); got != want {
		t.Fatalf("re-put properties\n got %q\nwant %q", got, want)
	}
	if got := transaction.ParseProps(goldenProps(t, 5079)).String(); got != goldenProps(t, 5757) {
		t.Fatalf("committed properties %q", got)
	}
	op := transaction.ParseProps("")
	op.Put(message.PropertyWaitStoreMsgOK, "true")
	op.Put(message.PropertyTags, "d")
	if got, want := op.String(), goldenProps(t, 6421); got != want {
		t.Fatalf("op properties %q, want %q", got, want)
	}
}

// TestTransactionCheckIdleStore: a pass on a broker that never saw a
// transaction creates the half topic (1 queue, read/write, as Java's
// selectTopicConfig does) and commits no scan offset.
func TestTransactionCheckIdleStore(t *testing.T) {
	e := newEnv(t)
	e.svc.Check(context.Background(), 0, 15, e.l)
	tc := e.topics.SelectTopicConfig(transaction.HalfTopic)
	if tc == nil || tc.ReadQueueNums != 1 || tc.WriteQueueNums != 1 || tc.Perm != 6 {
		t.Fatalf("half topic config %+v", tc)
	}
	if h, o := e.scanOffsets(); h != -1 || o != -1 {
		t.Fatalf("idle pass committed offsets %d %d", h, o)
	}
	if n, d := e.l.counts(); n != 0 || d != 0 {
		t.Fatalf("idle pass: %d checks %d discards", n, d)
	}
}
