package commitlog

import (
	"bytes"
	"context"
	"encoding/binary"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/message"
)

func TestCommitLogAppendIndependentDecode(t *testing.T) {
	c := openLog(t, testConfig(t.TempDir(), 1<<20), nil)
	var offs []int64
	for i := 0; i < 10; i++ {
		m := newMsg("TopicA", int32(i%2), strings.Repeat("x", i+1), "TAGS\x01t\x02KEYS\x01k")
		m.Flag = int32(i)
		m.ReconsumeTimes = 3
		r := mustPut(t, c, m)
		if r.Append.LogicsOffset != int64(i/2) || r.Append.MsgNum != 1 {
			t.Fatalf("msg %d: queue offset %d", i, r.Append.LogicsOffset)
		}
		if r.Append.MsgID != message.OffsetMsgID(m.StoreHost, r.Append.WroteOffset) {
			t.Fatalf("msgId %s", r.Append.MsgID)
		}
		offs = append(offs, r.Append.WroteOffset)
	}
	for i, off := range offs {
		b, err := c.ReadRecord(off)
		if err != nil {
			t.Fatal(err)
		}
		s, err := decodeSpec(b.Bytes)
		b.Release()
		if err != nil {
			t.Fatal(err)
		}
		if s.magic != -626843481 || s.phys != off || s.qid != int32(i%2) || s.qoff != int64(i/2) ||
			s.flag != int32(i) || string(s.body) != strings.Repeat("x", i+1) || s.topic != "TopicA" ||
			s.props != "TAGS\x01t\x02KEYS\x01k" || s.reconsume != 3 || s.storeTS == 0 ||
			!bytes.Equal(s.bornIP, []byte{10, 1, 2, 3}) || s.bornPort != 5555 || s.storePort != 10911 ||
			s.crc != message.BodyCRC(s.body) {
			t.Fatalf("record %d: %+v", i, s)
		}
	}
	if tq := c.TopicQueueTable(); tq["TopicA-0"] != 5 || tq["TopicA-1"] != 5 {
		t.Fatalf("topic queue table %v", tq)
	}
}

func TestCommitLogRollWritesBlankRecord(t *testing.T) {
	const fs = 4096
	c := openLog(t, testConfig(t.TempDir(), fs), nil)
	body := strings.Repeat("b", 900)
	var last PutMessageResult
	for i := 0; i < 5; i++ {
		last = mustPut(t, c, newMsg("T", 0, body, ""))
	}
	recLen := int(last.Append.WroteBytes)
	perFile := (fs - 8) / recLen
	if last.Append.WroteOffset != int64(fs) || perFile != 4 {
		t.Fatalf("5th record at %d (rec %d)", last.Append.WroteOffset, recLen)
	}
	b := c.GetMessage(int64(4*recLen), 8)
	if b == nil {
		t.Fatal("blank unreadable")
	}
	if int(binary.BigEndian.Uint32(b.Bytes)) != fs-4*recLen || int32(binary.BigEndian.Uint32(b.Bytes[4:])) != message.BlankMagicCode {
		t.Fatalf("blank %x", b.Bytes)
	}
	b.Release()
	if recs, end := records(t, c, 0); len(recs) != 5 || end != c.MaxOffset() {
		t.Fatalf("walk saw %d records up to %d (max %d)", len(recs), end, c.MaxOffset())
	}
	if r := c.PutMessage(newMsg("T", 0, strings.Repeat("z", fs), "")); r.Status != MessageIllegal {
		t.Fatalf("record larger than a file: %v", r.Status)
	}
}

func TestCommitLogLimitsAndTransactionOffsets(t *testing.T) {
	cfg := testConfig(t.TempDir(), 1<<20)
	cfg.MaxMessageSize = 1024
	c := openLog(t, cfg, nil)
	if r := c.PutMessage(newMsg("T", 0, strings.Repeat("a", 1024), "")); r.Status != MessageIllegal {
		t.Fatalf("oversize: %v", r.Status)
	}
	if r := c.PutMessage(newMsg("T", 0, "a", "K\x01"+strings.Repeat("v", 40000))); r.Status != PropertiesSizeExceeded {
		t.Fatalf("props: %v", r.Status)
	}
	if r := c.PutMessage(newMsg(strings.Repeat("t", 128), 0, "a", "")); r.Status != MessageIllegal {
		t.Fatalf("topic: %v", r.Status)
	}
	mustPut(t, c, newMsg("T", 0, "a", ""))
	p := newMsg("T", 0, "half", "")
	p.SysFlag = message.SysFlagTransPrepared
	if r := mustPut(t, c, p); r.Append.LogicsOffset != 0 {
		t.Fatalf("prepared got queue offset %d", r.Append.LogicsOffset)
	}
	if r := mustPut(t, c, newMsg("T", 0, "b", "")); r.Append.LogicsOffset != 1 {
		t.Fatalf("after prepared: %d", r.Append.LogicsOffset)
	}
	c.RemoveTopic("T")
	if r := mustPut(t, c, newMsg("T", 0, "c", "")); r.Append.LogicsOffset != 0 {
		t.Fatalf("after RemoveTopic: %d", r.Append.LogicsOffset)
	}
	c.SetTopicQueueTable(map[string]int64{"T-0": 100})
	if r := mustPut(t, c, newMsg("T", 0, "d", "")); r.Append.LogicsOffset != 100 {
		t.Fatalf("after SetTopicQueueTable: %d", r.Append.LogicsOffset)
	}
}

func TestCommitLogBatch(t *testing.T) {
	c := openLog(t, testConfig(t.TempDir(), 1<<20), nil)
	mustPut(t, c, newMsg("B", 1, "first", ""))
	var ms []*message.MessageExt
	for i := 0; i < 4; i++ {
		ms = append(ms, newMsg("B", 1, "m", "UNIQ_KEY\x01u"))
	}
	bad := newMsg("B", 1, "d", "DELAY\x012")
	if r := c.PutMessages([]*message.MessageExt{ms[0], bad}); r.Status != MessageIllegal {
		t.Fatalf("batch with DELAY: %v", r.Status)
	}
	tx := newMsg("B", 1, "t", "")
	tx.SysFlag = message.SysFlagTransPrepared
	if r := c.PutMessages([]*message.MessageExt{tx}); r.Status != MessageIllegal {
		t.Fatalf("batch with transaction flag: %v", r.Status)
	}
	if r := c.PutMessages([]*message.MessageExt{ms[0], newMsg("B", 2, "q", "")}); r.Status != MessageIllegal {
		t.Fatalf("batch across queues: %v", r.Status)
	}
	r := c.PutMessages(ms)
	if r.Status != PutOK || r.Append.MsgNum != 4 || r.Append.LogicsOffset != 1 {
		t.Fatalf("batch %+v", r)
	}
	ids := strings.Split(r.Append.MsgID, ",")
	if len(ids) != 4 {
		t.Fatalf("ids %v", ids)
	}
	for i, m := range ms {
		if m.QueueOffset != int64(1+i) || ids[i] != message.OffsetMsgID(m.StoreHost, m.CommitLogOffset) {
			t.Fatalf("member %d: qo %d", i, m.QueueOffset)
		}
		got, err := c.LookMessageByOffset(m.CommitLogOffset)
		if err != nil || got.QueueOffset != int64(1+i) || got.Properties["UNIQ_KEY"] != "u" {
			t.Fatalf("member %d read back %+v %v", i, got, err)
		}
	}
}

func TestCommitLogDelayRewrite(t *testing.T) {
	c := openLog(t, testConfig(t.TempDir(), 1<<20), nil)
	r := mustPut(t, c, newMsg("D", 3, "later", "DELAY\x012\x02TAGS\x01x"))
	m, err := c.LookMessageByOffset(r.Append.WroteOffset)
	if err != nil {
		t.Fatal(err)
	}
	if m.Topic != message.ScheduleTopic || m.QueueID != 1 || m.Properties["REAL_TOPIC"] != "D" || m.Properties["REAL_QID"] != "3" {
		t.Fatalf("rewritten %+v", m)
	}
	r = mustPut(t, c, newMsg("D", 0, "much later", "DELAY\x0199"))
	recs, _ := records(t, c, r.Append.WroteOffset)
	if len(recs) != 1 || recs[0].Topic != message.ScheduleTopic || recs[0].QueueID != 17 || recs[0].Properties["DELAY"] != "18" {
		t.Fatalf("clamped level: %+v", recs)
	}
}

type fakeReplica struct {
	ok      bool
	ack     bool
	mu      sync.Mutex
	offsets []int64
}

func (f *fakeReplica) IsSlaveOK(int64) bool { return f.ok }
func (f *fakeReplica) WaitReplicated(off int64, timeout time.Duration, done func(bool)) {
	f.mu.Lock()
	f.offsets = append(f.offsets, off)
	f.mu.Unlock()
	if f.ack {
		go done(true)
		return
	}
	time.AfterFunc(50*time.Millisecond, func() { done(false) }) // shorter than timeout
}

func TestCommitLogSyncFlushAndReplica(t *testing.T) {
	cfg := testConfig(t.TempDir(), 1<<20)
	cfg.SyncFlush = true
	cfg.SyncMaster = true
	cfg.SyncFlushTimeout = 5 * time.Second
	c := openLog(t, cfg, nil)
	if r := c.PutMessage(newMsg("S", 0, "a", "")); r.Status != SlaveNotAvailable {
		t.Fatalf("no HA: %v", r.Status)
	}
	rep := &fakeReplica{ok: true, ack: true}
	c.SetReplicaWaiter(rep)
	r := c.PutMessage(newMsg("S", 0, "b", ""))
	end := r.Append.WroteOffset + int64(r.Append.WroteBytes)
	if r.Status != PutOK || c.FlushedWhere() < end || rep.offsets[0] != end {
		t.Fatalf("sync put: %v flushed %d end %d", r.Status, c.FlushedWhere(), end)
	}
	rep.ack = false
	if r := c.PutMessage(newMsg("S", 0, "c", "")); r.Status != FlushSlaveTimeout {
		t.Fatalf("slave timeout: %v", r.Status)
	}
	if r := c.PutMessage(newMsg("S", 0, "d", "WAIT\x01false")); r.Status != PutOK {
		t.Fatalf("WAIT=false: %v", r.Status)
	}
}

func TestCommitLogAsyncPutDoesNotBlock(t *testing.T) {
	cfg := testConfig(t.TempDir(), 1<<20)
	cfg.SyncFlush = true
	c := openLog(t, cfg, nil)
	const n = 64
	var wg sync.WaitGroup
	wg.Add(n)
	var mu sync.Mutex
	seen := map[int64]bool{}
	for i := 0; i < n; i++ {
		c.PutMessageAsync(newMsg("A", 0, "x", ""), func(r PutMessageResult) {
			mu.Lock()
			seen[r.Append.LogicsOffset] = r.Status == PutOK
			mu.Unlock()
			wg.Done()
		})
	}
	wg.Wait()
	for i := int64(0); i < n; i++ {
		if !seen[i] {
			t.Fatalf("queue offset %d missing or not ok", i)
		}
	}
	if err := c.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r := c.PutMessage(newMsg("A", 0, "x", "")); r.Status != ServiceNotAvailable {
		t.Fatalf("after shutdown: %v", r.Status)
	}
}

func TestCommitLogIPv6HostsPatchedAtShiftedPositions(t *testing.T) {
	c := openLog(t, testConfig(t.TempDir(), 1<<20), nil)
	m := newMsg("V6", 0, "six", "")
	m.BornHost = netip.MustParseAddrPort("[2001:db8::7]:4000")
	m.StoreHost = netip.MustParseAddrPort("[fd00::1]:10911")
	mustPut(t, c, newMsg("V6", 0, "four", ""))
	r := mustPut(t, c, m)
	b, err := c.ReadRecord(r.Append.WroteOffset)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	s, err := decodeSpec(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if s.sys&0x30 != 0x30 || len(s.bornIP) != 16 || len(s.storeIP) != 16 || s.storeTS != r.Append.StoreTimestamp ||
		s.phys != r.Append.WroteOffset || s.qoff != 1 || s.bornPort != 4000 || string(s.body) != "six" {
		t.Fatalf("ipv6 record %+v", s)
	}
	if len(r.Append.MsgID) != 56 {
		t.Fatalf("ipv6 msgId %s", r.Append.MsgID)
	}
}
