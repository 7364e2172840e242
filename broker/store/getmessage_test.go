package store

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/wait"
)

func TestStoreGetMessageStatuses(t *testing.T) {
	cfg := smallConfig(t)
	s := startStore(t, cfg)
	for i := 0; i < 10; i++ {
		m := newMsg("T", 0, []string{"TagA", "TagB"}[i%2], "k"+itoa(int64(i)), []byte(fmt.Sprintf("body-%d", i)))
		m.Properties["color"] = []string{"red", "blue"}[i%2]
		m.PropertiesString = message.MarshalProperties(m.Properties)
		mustPut(t, s, m)
	}
	waitDispatched(t, s)
	cases := []struct {
		name   string
		topic  string
		offset int64
		filter MessageFilter
		status GetMessageStatus
		next   int64
		count  int
	}{
		{"found", "T", 0, nil, Found, 10, 10},
		{"found from 7", "T", 7, nil, Found, 10, 3},
		{"overflow one", "T", 10, nil, OffsetOverflowOne, 10, 0},
		{"overflow badly", "T", 15, nil, OffsetOverflowBadly, 10, 0},
		{"unknown queue is empty", "Nope", 3, nil, NoMessageInQueue, 0, 0},
		{"tag filter", "T", 0, tagFilter{message.TagsCode("TagB"): true}, Found, 10, 5},
		{"tag filter no match", "T", 0, tagFilter{message.TagsCode("TagZ"): true}, NoMatchedMessage, 10, 0},
		{"commitlog filter", "T", 0, propFilter{"red"}, Found, 10, 5},
		{"commitlog filter no match", "T", 0, propFilter{"green"}, NoMatchedMessage, 10, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := s.GetMessage("g", c.topic, 0, c.offset, 32, c.filter)
			if r.Status != c.status || r.NextBeginOffset != c.next || len(r.Messages) != c.count {
				t.Fatalf("got %v next %d count %d", r.Status, r.NextBeginOffset, len(r.Messages))
			}
			if c.topic == "T" && (r.MinOffset != 0 || r.MaxOffset != 10) {
				t.Fatalf("min %d max %d", r.MinOffset, r.MaxOffset)
			}
			if r.BufferTotalSize() != len(r.Body) || (c.count > 0 && !bytes.Equal(r.Messages[0], r.Body[:len(r.Messages[0])])) {
				t.Fatal("messages are not slices of the body")
			}
		})
	}
	// a slave never moves the client's offset
	cfg.BrokerRole = Slave
	if r := s.GetMessage("g", "T", 0, 15, 32, nil); r.Status != OffsetOverflowBadly || r.NextBeginOffset != 15 {
		t.Fatalf("slave correction: %v %d", r.Status, r.NextBeginOffset)
	}
	cfg.BrokerRole = AsyncMaster
	// body of the 4th message
	r := s.GetMessage("g", "T", 0, 3, 1, nil)
	m, err := message.DecodeRecord(r.Messages[0], true)
	if err != nil || string(m.Body) != "body-3" || m.QueueOffset != 3 || r.NextBeginOffset != 4 {
		t.Fatalf("message 3: %v %q %d next %d", err, m.Body, m.QueueOffset, r.NextBeginOffset)
	}
}

func TestStoreGetMessageTransferLimitsAndSuggestSlave(t *testing.T) {
	cfg := smallConfig(t)
	cfg.MappedFileSizeConsumeQueue = 1000 * 20 // a pull never crosses a CQ file: keep one file
	body := bytes.Repeat([]byte("x"), 1000)
	put := func(s *DefaultMessageStore) {
		for i := 0; i < 40; i++ {
			mustPut(t, s, newMsg("T", 0, "", "", body))
		}
		waitDispatched(t, s)
	}
	// hot data: 32 messages in memory
	s := startStore(t, cfg, WithTotalPhysicalMemory(1<<40))
	put(s)
	r := s.GetMessage("g", "T", 0, 0, 64, nil)
	if len(r.Messages) != 32 || r.NextBeginOffset != 32 || r.SuggestPullingFromSlave {
		t.Fatalf("hot: %d msgs next %d suggest %v", len(r.Messages), r.NextBeginOffset, r.SuggestPullingFromSlave)
	}
	// byte limit in memory
	cfg.MaxTransferBytesOnMessageInMemory = 5000
	if r := s.GetMessage("g", "T", 0, 0, 64, nil); len(r.Messages) != 4 {
		t.Fatalf("byte limit: %d msgs", len(r.Messages))
	}
	cfg.MaxTransferBytesOnMessageInMemory = 256 << 10
	// maxMsgNums
	if r := s.GetMessage("g", "T", 0, 0, 5, nil); len(r.Messages) != 5 || r.NextBeginOffset != 5 {
		t.Fatalf("max nums: %d next %d", len(r.Messages), r.NextBeginOffset)
	}
	shutdownStore(t, s)

	// cold data: 40% of 10 KB of memory is far behind => 8 messages, suggest slave
	s2 := startStore(t, cfg, WithTotalPhysicalMemory(10_000))
	r = s2.GetMessage("g", "T", 0, 0, 64, nil)
	if len(r.Messages) != 8 || !r.SuggestPullingFromSlave {
		t.Fatalf("cold: %d msgs suggest %v", len(r.Messages), r.SuggestPullingFromSlave)
	}
	// near the end the data is hot again and the suggestion flips back
	r = s2.GetMessage("g", "T", 0, 37, 64, nil)
	if len(r.Messages) != 3 || r.SuggestPullingFromSlave {
		t.Fatalf("tail: %d msgs suggest %v", len(r.Messages), r.SuggestPullingFromSlave)
	}
	if !s2.CheckInDiskByConsumeOffset("T", 0, 0) || s2.CheckInDiskByConsumeOffset("T", 0, 39) {
		t.Fatal("checkInDiskByConsumeOffset")
	}
}

type arrival struct {
	topic             string
	queueID           int32
	logicOffset, tags int64
}

type recListener struct {
	mu  sync.Mutex
	got []arrival
}

func (l *recListener) Arriving(topic string, queueID int32, logicOffset, tagsCode, _ int64, _ []byte, props map[string]string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, arrival{topic, queueID, logicOffset, tagsCode})
}

func (l *recListener) snapshot() []arrival {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]arrival(nil), l.got...)
}

func TestStoreArrivingListenerAndLookups(t *testing.T) {
	l := &recListener{}
	cfg := smallConfig(t)
	s := startStore(t, cfg, WithMessageArrivingListener(l))
	start := time.Now().UnixMilli()
	var res []commitlog.PutMessageResult
	for i := 0; i < 3; i++ {
		res = append(res, mustPut(t, s, newMsg("L", 2, "TagA", "", []byte("x"))))
		time.Sleep(5 * time.Millisecond)
	}
	waitDispatched(t, s)
	deadline := time.Now().Add(wait.Scale(5 * time.Second))
	for len(l.snapshot()) < 3 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	got := l.snapshot()
	want := arrival{"L", 2, 3, message.TagsCode("TagA")}
	if len(got) != 3 || got[2] != want {
		t.Fatalf("arrivals %v", got)
	}
	if s.CommitLogOffsetInQueue("L", 2, 1) != res[1].Append.WroteOffset {
		t.Fatal("commitLogOffsetInQueue")
	}
	if ts := s.MessageStoreTimeStamp("L", 2, 2); ts != res[2].Append.StoreTimestamp {
		t.Fatalf("store time %d want %d", ts, res[2].Append.StoreTimestamp)
	}
	if ts := s.EarliestMessageTime("L", 2); ts != res[0].Append.StoreTimestamp || ts < start {
		t.Fatalf("earliest %d", ts)
	}
	if s.EarliestMessageTimeOfStore() != res[0].Append.StoreTimestamp {
		t.Fatal("earliest of store")
	}
	if off := s.OffsetInQueueByTime("L", 2, res[2].Append.StoreTimestamp); off != 2 {
		t.Fatalf("offset by time %d", off)
	}
	if s.MessageTotalInQueue("L", 2) != 3 || s.MinOffsetInQueue("L", 2) != 0 {
		t.Fatal("total/min")
	}
	rec := s.SelectOneMessageByOffset(res[1].Append.WroteOffset)
	m, err := message.DecodeRecord(rec, true)
	if err != nil || m.QueueOffset != 1 || m.MsgID != res[1].Append.MsgID {
		t.Fatalf("select one: %v %+v", err, m)
	}
	if lm, err := s.LookMessageByOffset(res[0].Append.WroteOffset); err != nil || lm.Topic != "L" {
		t.Fatalf("look: %v", err)
	}
	info := s.RuntimeInfo()
	if info["putMessageTimesTotal"] != "3" || info["commitLogMaxOffset"] != itoa(s.MaxPhyOffset()) ||
		info["dispatchBehindBytes"] != "0" || info["commitLogMinOffset"] != "0" {
		t.Fatalf("runtime info %v", info)
	}
}

func TestStorePutStatuses(t *testing.T) {
	cfg := smallConfig(t)
	s := startStore(t, cfg)
	long := newMsg(string(bytes.Repeat([]byte("t"), 128)), 0, "", "", []byte("x"))
	if r := s.PutMessage(long); r.Status != commitlog.MessageIllegal {
		t.Fatalf("long topic: %v", r.Status)
	}
	cfg.BrokerRole = Slave
	if r := s.PutMessage(newMsg("T", 0, "", "", []byte("x"))); r.Status != commitlog.ServiceNotAvailable {
		t.Fatalf("slave: %v", r.Status)
	}
	cfg.BrokerRole = AsyncMaster
	done := make(chan commitlog.PutMessageResult, 1)
	s.PutMessagesAsync([]*message.MessageExt{newMsg("B", 0, "", "", []byte("a")), newMsg("B", 0, "", "", []byte("b"))},
		func(r commitlog.PutMessageResult) { done <- r })
	if r := <-done; r.Status != commitlog.PutOK || r.Append.MsgNum != 2 {
		t.Fatalf("batch: %v %d", r.Status, r.Append.MsgNum)
	}
	waitDispatched(t, s)
	if s.MaxOffsetInQueue("B", 0) != 2 {
		t.Fatal("batch not dispatched")
	}
	shutdownStore(t, s)
	if r := s.PutMessage(newMsg("T", 0, "", "", []byte("x"))); r.Status != commitlog.ServiceNotAvailable {
		t.Fatalf("after shutdown: %v", r.Status)
	}
	if s.GetMessage("g", "T", 0, 0, 1, nil) != nil {
		t.Fatal("get after shutdown")
	}
}
