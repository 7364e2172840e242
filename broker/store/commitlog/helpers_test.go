package commitlog

import (
	"context"
	"encoding/binary"
	"fmt"
	"net/netip"
	"testing"
	"time"

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

// openLog creates, loads and recovers a CommitLog and registers its shutdown.
func openLog(t testing.TB, cfg Config, cp *checkpoint.StoreCheckpoint, abnormal bool) (*CommitLog, RecoverResult) {
	t.Helper()
	var lg = zaptest.NewLogger(t)
	c, err := New(cfg, cp, lg)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Load(); err != nil {
		t.Fatal(err)
	}
	var res RecoverResult
	if abnormal {
		res, err = c.RecoverAbnormally()
	} else {
		res, err = c.RecoverNormally()
	}
	if err != nil {
		t.Fatal(err)
	}
	c.Start()
	t.Cleanup(func() { _ = c.Shutdown(context.Background()) })
	return c, res
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
