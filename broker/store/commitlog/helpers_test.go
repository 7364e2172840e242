package commitlog

import (
	"context"
	"encoding/binary"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker/store/checkpoint"
	"github.com/rocketmq-go/rmq/internal/message"
)

func testConfig(dir string, fileSize int) Config {
	cfg := DefaultConfig(dir)
	cfg.FileSize = fileSize
	cfg.FlushInterval = 10 * time.Millisecond
	return cfg
}

// openLog creates and loads a CommitLog on an empty directory, starts it
// and registers its shutdown.
func openLog(t testing.TB, cfg Config, cp *checkpoint.StoreCheckpoint) *CommitLog {
	t.Helper()
	return reopenLog(t, cfg, cp, 0)
}

// reopenLog is openLog on a directory whose valid records end at end (what
// the store's recovery would have found): the log is cut there.
func reopenLog(t testing.TB, cfg Config, cp *checkpoint.StoreCheckpoint, end int64) *CommitLog {
	t.Helper()
	c := loadLog(t, cfg, cp, zaptest.NewLogger(t), end)
	c.Start()
	t.Cleanup(func() { _ = c.Shutdown(context.Background()) })
	return c
}

// loadLog creates and loads a CommitLog and cuts it at end, without
// starting it or registering its shutdown.
func loadLog(t testing.TB, cfg Config, cp *checkpoint.StoreCheckpoint, lg *zap.Logger, end int64) *CommitLog {
	t.Helper()
	c, err := New(cfg, cp, lg)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Load(); err != nil {
		t.Fatal(err)
	}
	if err := c.SetRecoveredEnd(end); err != nil {
		t.Fatal(err)
	}
	return c
}

// records decodes the records from offset on (CRC checked), following
// blank records to the next file, and returns them with the offset where
// the walk stopped: the readable end or the first record that does not
// decode at its own offset.
func records(t testing.TB, c *CommitLog, from int64) ([]*message.MessageExt, int64) {
	t.Helper()
	var out []*message.MessageExt
	for {
		b := c.GetData(from)
		if b == nil {
			return out, from
		}
		next, more := decodeBuffer(b, &out)
		b.Release()
		if !more {
			return out, next
		}
		if next == from {
			return out, from
		}
		from = next
	}
}

// decodeBuffer appends the records of one file's readable bytes to out;
// more is false when the walk must stop at next.
func decodeBuffer(b *Buffer, out *[]*message.MessageExt) (next int64, more bool) {
	be := binary.BigEndian
	pos := 0
	for pos+8 <= len(b.Bytes) {
		at := b.StartOffset + int64(pos)
		size := int(int32(be.Uint32(b.Bytes[pos:])))
		if int32(be.Uint32(b.Bytes[pos+4:])) == message.BlankMagicCode {
			return at + int64(size), true // the blank fills the file
		}
		if size < 8 || pos+size > len(b.Bytes) {
			return at, false
		}
		m, err := message.DecodeRecord(b.Bytes[pos:pos+size], true)
		if err != nil || m.CommitLogOffset != at {
			return at, false
		}
		*out = append(*out, m)
		pos += size
	}
	return b.StartOffset + int64(pos), pos == len(b.Bytes)
}

func newMsg(topic string, qid int32, body string, props string) *message.MessageExt {
	return &message.MessageExt{
		Message:          message.Message{Topic: topic, Body: []byte(body)},
		PropertiesString: props,
		QueueID:          qid,
		BornTimestamp:    time.Now().UnixMilli(),
		BornHost:         netip.MustParseAddrPort("10.1.2.3:5555"),
		StoreHost:        netip.MustParseAddrPort("127.0.0.1:10911"),
	}
}

func mustPut(t testing.TB, c *CommitLog, m *message.MessageExt) PutMessageResult {
	t.Helper()
	r := c.PutMessage(m)
	if r.Status != PutOK {
		t.Fatalf("put %s: %v", m.Topic, r.Status)
	}
	return r
}

// specRecord is an independent decoder written from store.md §1, used to
// check what the CommitLog writes without going through internal/message.
type specRecord struct {
	total, magic, crc, qid, flag   int32
	qoff, phys                     int64
	sys                            int32
	bornTS, storeTS                int64
	bornIP, storeIP                []byte
	bornPort, storePort, reconsume int32
	prep                           int64
	body                           []byte
	topic, props                   string
}

func decodeSpec(b []byte) (specRecord, error) {
	be := binary.BigEndian
	var r specRecord
	if len(b) < 84 {
		return r, fmt.Errorf("short")
	}
	r.total = int32(be.Uint32(b[0:]))
	r.magic = int32(be.Uint32(b[4:]))
	r.crc = int32(be.Uint32(b[8:]))
	r.qid = int32(be.Uint32(b[12:]))
	r.flag = int32(be.Uint32(b[16:]))
	r.qoff = int64(be.Uint64(b[20:]))
	r.phys = int64(be.Uint64(b[28:]))
	r.sys = int32(be.Uint32(b[36:]))
	r.bornTS = int64(be.Uint64(b[40:]))
	p := 48
	ipLen := 4
	if r.sys&0x10 != 0 {
		ipLen = 16
	}
	r.bornIP = b[p : p+ipLen]
	r.bornPort = int32(be.Uint32(b[p+ipLen:]))
	p += ipLen + 4
	r.storeTS = int64(be.Uint64(b[p:]))
	p += 8
	ipLen = 4
	if r.sys&0x20 != 0 {
		ipLen = 16
	}
	r.storeIP = b[p : p+ipLen]
	r.storePort = int32(be.Uint32(b[p+ipLen:]))
	p += ipLen + 4
	r.reconsume = int32(be.Uint32(b[p:]))
	r.prep = int64(be.Uint64(b[p+4:]))
	p += 12
	n := int(be.Uint32(b[p:]))
	r.body = b[p+4 : p+4+n]
	p += 4 + n
	tl := int(b[p])
	r.topic = string(b[p+1 : p+1+tl])
	p += 1 + tl
	pl := int(be.Uint16(b[p:]))
	r.props = string(b[p+2 : p+2+pl])
	p += 2 + pl
	if p != int(r.total) {
		return r, fmt.Errorf("length %d != total %d", p, r.total)
	}
	return r, nil
}
