package broker_test

import (
	"context"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
	"go.uber.org/zap/zaptest"
)

func newClient(t *testing.T) *remoting.Client { return newClientTB(t) }

func newClientTB(t testing.TB) *remoting.Client {
	t.Helper()
	c := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t).Named("client"))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = c.Shutdown(ctx)
	})
	return c
}

func invoke(t *testing.T, c *remoting.Client, addr string, req *codec.RemotingCommand) *codec.RemotingCommand {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := c.InvokeSync(ctx, addr, req)
	if err != nil {
		t.Fatalf("invoke %d: %v", req.Code, err)
	}
	return resp
}

func sendHeader(topic string, queueID int32, props map[string]string) *header.SendMessageRequestHeader {
	return &header.SendMessageRequestHeader{
		ProducerGroup: "pg", Topic: topic, DefaultTopic: "TBW102", DefaultTopicQueueNums: 4,
		QueueID: queueID, BornTimestamp: time.Now().UnixMilli(), Properties: message.MarshalProperties(props),
	}
}

func sendRequest(c int32, h *header.SendMessageRequestHeader, body []byte) *codec.RemotingCommand {
	if c == code.SendMessageV2 || c == code.SendBatchMessage || c == code.SendReplyMessageV2 {
		return codec.NewRequest(c, header.CreateSendMessageRequestHeaderV2(h).ToExtFields(), body)
	}
	return codec.NewRequest(c, h.ToExtFields(), body)
}

func wantCode(t *testing.T, resp *codec.RemotingCommand, c int32) {
	t.Helper()
	if resp.Code != c {
		t.Fatalf("code %d (%s) remark %q, want %d (%s)", resp.Code, code.ResponseName(resp.Code), resp.Remark, c, code.ResponseName(c))
	}
}

func readBack(t *testing.T, b *broker.Broker, topic string, queueID int32, offset int64) *message.MessageExt {
	t.Helper()
	var got *message.MessageExt
	testutil.Eventually(t, 5*time.Second, func() error {
		r := b.Store().GetMessage("g", topic, queueID, offset, 1, nil)
		if r == nil || r.Status != store.Found || len(r.Messages) != 1 {
			return errStatus(r)
		}
		m, err := message.DecodeRecord(r.Messages[0], true)
		if err != nil {
			return err
		}
		got = m
		return nil
	})
	return got
}

type statusErr string

func (e statusErr) Error() string { return string(e) }

func errStatus(r *store.GetMessageResult) error {
	if r == nil {
		return statusErr("nil result")
	}
	return statusErr("status " + r.Status.String() + " n=" + strconv.Itoa(len(r.Messages)))
}

func TestBrokerSendMessageV1AndV2(t *testing.T) {
	b := testutil.StartBroker(t, "")
	c := newClient(t)
	addr := b.Addr().String()
	for i, rc := range []int32{code.SendMessage, code.SendMessageV2, code.SendMessage} {
		props := map[string]string{message.PropertyTags: "tagA", message.PropertyUniqClientMessageIDKeyidx: "ABCD" + strconv.Itoa(i),
			message.PropertyWaitStoreMsgOK: "true"}
		resp := invoke(t, c, addr, sendRequest(rc, sendHeader("TopicTest", 1, props), []byte("hello "+strconv.Itoa(i))))
		wantCode(t, resp, code.Success)
		var rh header.SendMessageResponseHeader
		if err := rh.FromExtFields(resp.ExtFields); err != nil {
			t.Fatal(err)
		}
		if rh.QueueID != 1 || rh.QueueOffset != int64(i) {
			t.Fatalf("send %d: queueId %d queueOffset %d", i, rh.QueueID, rh.QueueOffset)
		}
		if resp.Ext("MSG_REGION") != "DefaultRegion" || resp.Ext("TRACE_ON") != "true" {
			t.Fatalf("ext %v", resp.ExtFields)
		}
		m := readBack(t, b, "TopicTest", 1, int64(i))
		if string(m.Body) != "hello "+strconv.Itoa(i) || m.Tags() != "tagA" {
			t.Fatalf("stored %q tags %q", m.Body, m.Tags())
		}
		if m.MsgID != rh.MsgID {
			t.Fatalf("offsetMsgId %s, response msgId %s", m.MsgID, rh.MsgID)
		}
		props2 := message.UnmarshalProperties(m.PropertiesString)
		if props2[message.PropertyCluster] != "DefaultCluster" || props2[message.PropertyWaitStoreMsgOK] != "" {
			t.Fatalf("stored properties %q", m.PropertiesString)
		}
		if m.BornHost.Addr().String() != "127.0.0.1" || m.StoreHost.Port() != uint16(b.ListenPort()) {
			t.Fatalf("hosts born %v store %v", m.BornHost, m.StoreHost)
		}
	}
}

func TestBrokerSendOnFastPort(t *testing.T) {
	b := testutil.StartBroker(t, "")
	c := newClient(t)
	resp := invoke(t, c, b.FastAddr().String(), sendRequest(code.SendMessageV2, sendHeader("TopicFast", 0, nil), []byte("x")))
	wantCode(t, resp, code.Success)
	// Pull is not served on the fast port.
	pull := codec.NewRequest(code.PullMessage, map[string]string{"topic": "TopicFast"}, nil)
	if r := invoke(t, c, b.FastAddr().String(), pull); r.Code != code.RequestCodeNotSupported {
		t.Fatalf("pull on fast port: code %d %q", r.Code, r.Remark)
	}
}

func TestBrokerSendBatch(t *testing.T) {
	b := testutil.StartBroker(t, "")
	c := newClient(t)
	items := []message.BatchItem{
		{Body: []byte("one"), PropertiesString: message.MarshalProperties(map[string]string{"UNIQ_KEY": "K1"})},
		{Flag: 3, Body: []byte("two"), PropertiesString: message.MarshalProperties(map[string]string{"UNIQ_KEY": "K2"})},
		{Body: []byte("three")},
	}
	h := sendHeader("TopicBatch", 2, nil)
	h.Batch = true
	resp := invoke(t, c, b.Addr().String(), sendRequest(code.SendBatchMessage, h, message.EncodeBatch(nil, items)))
	wantCode(t, resp, code.Success)
	if ids := strings.Split(resp.Ext("msgId"), ","); len(ids) != 3 || resp.Ext("queueOffset") != "0" {
		t.Fatalf("batch response %v", resp.ExtFields)
	}
	for i, it := range items {
		m := readBack(t, b, "TopicBatch", 2, int64(i))
		if string(m.Body) != string(it.Body) || m.Flag != it.Flag {
			t.Fatalf("batch msg %d: %q flag %d", i, m.Body, m.Flag)
		}
		p := message.UnmarshalProperties(m.PropertiesString)
		if p["CLUSTER"] != "DefaultCluster" {
			t.Fatalf("batch msg %d properties %q", i, m.PropertiesString)
		}
	}
}

func TestBrokerSendErrors(t *testing.T) {
	b := testutil.StartBroker(t, "", func(c *broker.BrokerConfig, s *store.MessageStoreConfig) {
		s.MaxMessageSize = 1024
	})
	c := newClient(t)
	addr := b.Addr().String()
	// create TopicE with 8 queues through auto-creation
	wantCode(t, invoke(t, c, addr, sendRequest(code.SendMessage, sendHeader("TopicE", 0, nil), []byte("x"))), code.Success)

	resp := invoke(t, c, addr, sendRequest(code.SendMessage, sendHeader("TopicE", 4, nil), []byte("x")))
	wantCode(t, resp, code.SystemError)
	if !strings.HasPrefix(resp.Remark, "request queueId[4] is illegal, TopicConfig [topicName=TopicE, readQueueNums=4, writeQueueNums=4, perm=RW-") {
		t.Fatalf("remark %q", resp.Remark)
	}
	if resp.Ext("MSG_REGION") != "DefaultRegion" {
		t.Fatalf("error response lacks MSG_REGION: %v", resp.ExtFields)
	}

	resp = invoke(t, c, addr, sendRequest(code.SendMessage, sendHeader("TopicE", 0, nil), make([]byte, 2048)))
	wantCode(t, resp, code.MessageIllegal)
	if !strings.Contains(resp.Remark, "msg body length limit 1024B") {
		t.Fatalf("remark %q", resp.Remark)
	}

	resp = invoke(t, c, addr, sendRequest(code.SendMessage, sendHeader("SCHEDULE_TOPIC_XXXX", 0, nil), []byte("x")))
	wantCode(t, resp, code.NoPermission)
	if resp.Remark != "Sending message to topic[SCHEDULE_TOPIC_XXXX] is forbidden." {
		t.Fatalf("remark %q", resp.Remark)
	}

	resp = invoke(t, c, addr, sendRequest(code.SendMessage, sendHeader("bad topic!", 0, nil), []byte("x")))
	wantCode(t, resp, code.SystemError)

	req := codec.NewRequest(code.SendMessage, map[string]string{"topic": "TopicE"}, []byte("x"))
	resp = invoke(t, c, addr, req)
	wantCode(t, resp, code.SystemError)
	if !strings.Contains(resp.Remark, "is null") {
		t.Fatalf("missing header field remark %q", resp.Remark)
	}
}

func TestBrokerSendTopicNotExistWithoutAutoCreate(t *testing.T) {
	b := testutil.StartBroker(t, "", func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) {
		c.AutoCreateTopicEnable = false
	})
	c := newClient(t)
	resp := invoke(t, c, b.Addr().String(), sendRequest(code.SendMessage, sendHeader("NoSuchTopic", 0, nil), []byte("x")))
	wantCode(t, resp, code.TopicNotExist)
	if resp.Remark != "topic[NoSuchTopic] not exist, apply first please!\nSee http://rocketmq.apache.org/docs/faq/ for further details." {
		t.Fatalf("remark %q", resp.Remark)
	}
	if b.Topics().SelectTopicConfig("NoSuchTopic") != nil {
		t.Fatal("topic created")
	}
}

func TestBrokerSendAutoCreate(t *testing.T) {
	b := testutil.StartBroker(t, "")
	c := newClient(t)
	h := sendHeader("AutoTopic", 0, nil)
	h.DefaultTopicQueueNums = 3
	wantCode(t, invoke(t, c, b.Addr().String(), sendRequest(code.SendMessage, h, []byte("x"))), code.Success)
	tc := b.Topics().SelectTopicConfig("AutoTopic")
	if tc == nil || tc.WriteQueueNums != 3 || tc.ReadQueueNums != 3 || tc.Perm != 6 {
		t.Fatalf("auto-created %+v", tc)
	}
}

func TestBrokerSendNoPermissionOrderTopic(t *testing.T) {
	b := testutil.StartBroker(t, "", func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) {
		c.BrokerPermission = 4 // read only
	})
	tc := body.NewTopicConfig("OrderTopic")
	tc.Perm, tc.Order = 6, true
	b.Topics().UpdateTopicConfig(tc)
	c := newClient(t)
	resp := invoke(t, c, b.Addr().String(), sendRequest(code.SendMessage, sendHeader("OrderTopic", 0, nil), []byte("x")))
	wantCode(t, resp, code.NoPermission)
	if resp.Remark != "the broker[127.0.0.1] sending message is forbidden" {
		t.Fatalf("remark %q", resp.Remark)
	}
	// A non-order topic is still written (4.9.8 checks the broker
	// permission only for order topics; clients avoid read-only brokers by route).
	wantCode(t, invoke(t, c, b.Addr().String(), sendRequest(code.SendMessage, sendHeader("PlainTopic", 0, nil), []byte("x"))), code.Success)
}

func TestBrokerSendTransactionRejected(t *testing.T) {
	b := testutil.StartBroker(t, "", func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) {
		c.RejectTransactionMessage = true
	})
	c := newClient(t)
	h := sendHeader("TopicTx", 0, map[string]string{message.PropertyTransactionPrepared: "true"})
	h.SysFlag = message.SysFlagTransPrepared
	resp := invoke(t, c, b.Addr().String(), sendRequest(code.SendMessage, h, []byte("x")))
	wantCode(t, resp, code.NoPermission)
	if resp.Remark != "the broker[127.0.0.1] sending transaction message is forbidden" {
		t.Fatalf("remark %q", resp.Remark)
	}
}

func TestBrokerSendTransactionHalf(t *testing.T) {
	b := testutil.StartBroker(t, "")
	c := newClient(t)
	h := sendHeader("TopicTx", 2, map[string]string{message.PropertyTransactionPrepared: "true", message.PropertyProducerGroup: "pg"})
	h.SysFlag = message.SysFlagTransPrepared
	resp := invoke(t, c, b.Addr().String(), sendRequest(code.SendMessage, h, []byte("half")))
	wantCode(t, resp, code.Success)
	m := readBack(t, b, "RMQ_SYS_TRANS_HALF_TOPIC", 0, 0)
	p := message.UnmarshalProperties(m.PropertiesString)
	if p[message.PropertyRealTopic] != "TopicTx" || p[message.PropertyRealQueueID] != "2" || message.TransactionType(m.SysFlag) != 0 {
		t.Fatalf("half message props %q sysFlag %d", m.PropertiesString, m.SysFlag)
	}
}

// TestBrokerSendTransactionHalfAnswersRequestQueue: the SendResult of a
// prepared message names the queue the producer chose (Java answers
// queueIdInt), not the half topic's queue 0 where it is stored; the queue
// offset is the half queue's.
func TestBrokerSendTransactionHalfAnswersRequestQueue(t *testing.T) {
	b := testutil.StartBroker(t, "")
	c := newClient(t)
	for i, qid := range []int32{3, 1, 0} {
		h := sendHeader("TopicTxQ", qid, map[string]string{message.PropertyTransactionPrepared: "true", message.PropertyProducerGroup: "pg"})
		h.SysFlag = message.SysFlagTransPrepared
		resp := invoke(t, c, b.Addr().String(), sendRequest(code.SendMessageV2, h, []byte("half")))
		wantCode(t, resp, code.Success)
		var rh header.SendMessageResponseHeader
		if err := rh.FromExtFields(resp.ExtFields); err != nil {
			t.Fatal(err)
		}
		if rh.QueueID != qid || rh.QueueOffset != int64(i) {
			t.Fatalf("half send %d: answer queueId %d queueOffset %d, want queueId %d queueOffset %d", i, rh.QueueID, rh.QueueOffset, qid, i)
		}
		m := readBack(t, b, "RMQ_SYS_TRANS_HALF_TOPIC", 0, int64(i))
		if p := message.UnmarshalProperties(m.PropertiesString); p[message.PropertyRealQueueID] != strconv.Itoa(int(qid)) {
			t.Fatalf("half %d stored props %q", i, m.PropertiesString)
		}
	}
}

func TestBrokerSendRetryToDLQ(t *testing.T) {
	b := testutil.StartBroker(t, "")
	c := newClient(t)
	h := sendHeader("%RETRY%cg1", 0, nil)
	three, two := int32(3), int32(2)
	h.ReconsumeTimes, h.MaxReconsumeTimes = &three, &two
	resp := invoke(t, c, b.Addr().String(), sendRequest(code.SendMessage, h, []byte("dead")))
	wantCode(t, resp, code.Success)
	m := readBack(t, b, "%DLQ%cg1", 0, 0)
	if string(m.Body) != "dead" {
		t.Fatalf("dlq body %q", m.Body)
	}
}

func TestBrokerUnknownCode(t *testing.T) {
	b := testutil.StartBroker(t, "")
	c := newClient(t)
	resp := invoke(t, c, b.Addr().String(), codec.NewRequest(9999, nil, nil))
	wantCode(t, resp, code.RequestCodeNotSupported)
	if resp.Remark != " request type 9999 not supported" {
		t.Fatalf("remark %q", resp.Remark)
	}
}

func TestBrokerSendFlushAndReplicaModes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flush store.FlushDiskType
		role  store.BrokerRole
		want  int32
	}{
		{"syncFlush", store.SyncFlush, store.AsyncMaster, code.Success},
		{"syncMasterNoSlave", store.AsyncFlush, store.SyncMaster, code.SlaveNotAvailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := testutil.StartBroker(t, "", func(_ *broker.BrokerConfig, s *store.MessageStoreConfig) {
				s.FlushDiskType, s.BrokerRole = tc.flush, tc.role
			})
			c := newClient(t)
			resp := invoke(t, c, b.Addr().String(), sendRequest(code.SendMessageV2, sendHeader("TopicFlush", 0, nil), []byte("x")))
			wantCode(t, resp, tc.want)
			// Stored either way: the header carries the offsets.
			if resp.Ext("queueOffset") != "0" || resp.Ext("msgId") == "" {
				t.Fatalf("ext %v", resp.ExtFields)
			}
			readBack(t, b, "TopicFlush", 0, 0)
		})
	}
}

// TestBrokerSendDiskFullRemarkShowsUsage: a send refused because the disk
// is full names the used fraction of the CommitLog, consume-queue and index
// partitions, as Java's diskUtil prints them ("CL: %5.2f CQ: %5.2f INDEX: %5.2f").
func TestBrokerSendDiskFullRemarkShowsUsage(t *testing.T) {
	var clUsed atomic.Uint64
	clUsed.Store(math.Float64bits(0.5))
	usage := func(path string) float64 {
		switch filepath.Base(path) {
		case "commitlog":
			return math.Float64frombits(clUsed.Load())
		case "consumequeue":
			return 0.42
		case "index":
			return 0.07
		}
		return -1
	}
	b := startBrokerWithOptions(t, broker.Options{StoreOptions: []store.Option{
		store.WithDiskUsage(usage), store.WithDiskCheckInterval(5 * time.Millisecond)}})
	c := newClient(t)
	wantCode(t, invoke(t, c, b.Addr().String(), sendRequest(code.SendMessageV2, sendHeader("TopicDisk", 0, nil), []byte("x"))), code.Success)
	clUsed.Store(math.Float64bits(0.95))
	var resp *codec.RemotingCommand
	testutil.Eventually(t, 5*time.Second, func() error { // until the disk check marks the disk full
		resp = invoke(t, c, b.Addr().String(), sendRequest(code.SendMessageV2, sendHeader("TopicDisk", 0, nil), []byte("x")))
		if resp.Code == code.Success {
			return statusErr("disk not marked full yet")
		}
		return nil
	})
	wantCode(t, resp, code.ServiceNotAvailable)
	want := "service not available now. It may be caused by one of the following reasons: the broker's disk is full " +
		"[CL:  0.95 CQ:  0.42 INDEX:  0.07], messages are put to the slave, message store has been shut down, etc."
	if resp.Remark != want {
		t.Fatalf("remark %q\nwant   %q", resp.Remark, want)
	}
}
