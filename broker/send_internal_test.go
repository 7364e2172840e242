package broker

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

func TestBrokerSendPutStatusMapping(t *testing.T) {
	b := &Broker{storeCfg: store.NewMessageStoreConfig()}
	for _, tc := range []struct {
		st     commitlog.PutMessageStatus
		code   int32
		stored bool
		remark string
	}{
		{commitlog.PutOK, code.Success, true, ""},
		{commitlog.FlushDiskTimeout, code.FlushDiskTimeout, true, ""},
		{commitlog.FlushSlaveTimeout, code.FlushSlaveTimeout, true, ""},
		{commitlog.SlaveNotAvailable, code.SlaveNotAvailable, true, ""},
		{commitlog.CreateMappedFileFailed, code.SystemError, false, "create mapped file failed, server is busy or broken."},
		{commitlog.MessageIllegal, code.MessageIllegal, false, "the message is illegal, maybe msg body or properties length not matched. msg body length limit 4194304B, msg properties length limit 32KB."},
		{commitlog.PropertiesSizeExceeded, code.MessageIllegal, false, "the message is illegal"},
		{commitlog.ServiceNotAvailable, code.ServiceNotAvailable, false, "service not available now. It may be caused by one of the following reasons: the broker's disk is full ["},
		{commitlog.OSPageCacheBusy, code.SystemError, false, "[PC_SYNCHRONIZED]broker busy, start flow control for a while"},
		{commitlog.UnknownError, code.SystemError, false, "UNKNOWN_ERROR"},
		{commitlog.InSyncReplicasNotEnough, code.SystemError, false, "in-sync replicas not enough"},
		{commitlog.PutMessageStatus(99), code.SystemError, false, "UNKNOWN_ERROR DEFAULT"},
	} {
		c, remark, ok := b.putStatusResponse(tc.st)
		if c != tc.code || ok != tc.stored || !strings.HasPrefix(remark, tc.remark) {
			t.Errorf("%v: got %d %q %v", tc.st, c, remark, ok)
		}
	}
}

func TestBrokerSendHelpers(t *testing.T) {
	tc := body.TopicConfig{TopicName: "T", ReadQueueNums: 4, WriteQueueNums: 2, Perm: 7, TopicFilterType: "SINGLE_TAG"}
	want := "TopicConfig [topicName=T, readQueueNums=4, writeQueueNums=2, perm=RWX, topicFilterType=SINGLE_TAG, topicSysFlag=0, order=false]"
	if got := topicConfigString(&tc); got != want {
		t.Errorf("topicConfigString %q", got)
	}
	if perm2String(4) != "R--" || perm2String(2) != "-W-" || perm2String(0) != "---" {
		t.Error("perm2String")
	}
	props := message.MarshalProperties(map[string]string{"WAIT": "true", "TAGS": "a", "CLUSTER": "x"})
	got := message.UnmarshalProperties(storedProperties(props, "DefaultCluster"))
	if got["WAIT"] != "" || got["TAGS"] != "a" || got["CLUSTER"] != "DefaultCluster" || len(got) != 2 {
		t.Errorf("storedProperties %v", got)
	}
	sep := string(message.PropertySeparator)
	if joinBatchProperties("a\x01b", "c\x01d") != "a\x01b"+sep+"c\x01d" ||
		joinBatchProperties("a\x01b"+sep, "c\x01d") != "a\x01b"+sep+"c\x01d" ||
		joinBatchProperties("", "c\x01d") != "c\x01d" || joinBatchProperties("a\x01b", "") != "a\x01b" {
		t.Error("joinBatchProperties")
	}
	if sysFlagFor(0, "MULTI_TAG") != message.SysFlagMultiTags || sysFlagFor(4, "SINGLE_TAG") != 4 {
		t.Error("sysFlagFor")
	}
}

// TestBrokerSendAnswerMatchesMap: a stored send's answer, written from its
// fields, has the bytes of the map-built answer (newSendResponse plus
// SendMessageResponseHeader.PutExtFields, Java's HashMap order) in both
// serializations, for the status codes that carry the header.
func TestBrokerSendAnswerMatchesMap(t *testing.T) {
	b := &Broker{storeCfg: store.NewMessageStoreConfig()}
	for _, region := range []string{"DefaultRegion", "r\x01\"é<"} {
		cfg := NewBrokerConfig()
		cfg.RegionID, cfg.TraceOn = region, region == "DefaultRegion"
		b.cfg.Store(cfg)
		for _, st := range []commitlog.PutMessageStatus{commitlog.PutOK, commitlog.FlushDiskTimeout, commitlog.SlaveNotAvailable} {
			r := commitlog.PutMessageResult{Status: st}
			r.Append.MsgID, r.Append.LogicsOffset = "7F00000100002A9F00000000000004D2,7F00000100002A9F0000000000000512", 1<<33+7
			for _, st2 := range []codec.SerializeType{codec.JSON, codec.RocketMQ} {
				got := b.sendResult(r, 3)
				if got.ExtFields != nil || got.ExtSource == nil {
					t.Fatalf("%v: answer built a map", st)
				}
				c, remark, _ := b.putStatusResponse(st)
				want := b.newSendResponse(c, remark)
				(&header.SendMessageResponseHeader{MsgID: r.Append.MsgID, QueueID: 3, QueueOffset: r.Append.LogicsOffset}).PutExtFields(want.ExtFields)
				got.SerializeType, want.SerializeType = st2, st2
				gf, err1 := codec.Encode(got)
				wf, err2 := codec.Encode(want)
				if err1 != nil || err2 != nil || !bytes.Equal(gf, wf) {
					t.Fatalf("%v %v: answer\n got %q\nwant %q (%v %v)", st, st2, gf, wf, err1, err2)
				}
			}
		}
	}
}

// TestBrokerSendStoreHostFollowsConfig: the STOREHOST a send stores is
// parsed once, yet follows a brokerIP1 changed by updateBrokerConfig, and
// an unparsable brokerIP1 still gives 127.0.0.1 as before the cache.
func TestBrokerSendStoreHostFollowsConfig(t *testing.T) {
	srv := remoting.NewNettyServerConfig()
	srv.ListenPort = 10911
	b := &Broker{srvCfg: srv}
	for _, tc := range []struct{ ip, want string }{
		{"10.0.0.1", "10.0.0.1:10911"},
		{"10.0.0.1", "10.0.0.1:10911"},
		{"10.0.0.2", "10.0.0.2:10911"},
		{"not-an-ip", "127.0.0.1:10911"},
	} {
		cfg := NewBrokerConfig()
		cfg.BrokerIP1 = tc.ip
		b.cfg.Store(cfg)
		if got := b.storeHost().String(); got != tc.want {
			t.Errorf("brokerIP1 %q: storeHost %s, want %s", tc.ip, got, tc.want)
		}
	}
}
