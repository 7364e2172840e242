package broker_test

import (
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

func TestBrokerSendReplyMessage(t *testing.T) {
	b := testutil.StartBroker(t, "")
	addr := b.Addr().String()
	requester := newClient(t)
	pushed := make(chan *codec.RemotingCommand, 1)
	requester.RegisterProcessor(code.PushReplyMessageToClient, remoting.ProcessorFunc(
		func(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
			pushed <- req
			return codec.NewResponse(code.Success, ""), nil
		}), remoting.NewPool("push", 1, 10))
	hb := &body.HeartbeatData{ClientID: "requester@1", ProducerDataSet: []body.ProducerData{{GroupName: "reqGroup"}}}
	wantCode(t, invoke(t, requester, addr, codec.NewRequest(code.HeartBeat, nil, hb.Encode())), code.Success)

	replier := newClient(t)
	replyTopic := "DefaultCluster_REPLY_TOPIC"
	props := map[string]string{message.PropertyMessageReplyToClient: "requester@1", message.PropertyCorrelationID: "corr-1"}
	resp := invoke(t, replier, addr, sendRequest(code.SendReplyMessageV2, sendHeader(replyTopic, 0, props), []byte("answer")))
	wantCode(t, resp, code.Success)
	select {
	case req := <-pushed:
		var h header.ReplyMessageRequestHeader
		if err := h.FromExtFields(req.ExtFields); err != nil {
			t.Fatal(err)
		}
		p := message.UnmarshalProperties(h.Properties)
		if string(req.Body) != "answer" || h.Topic != replyTopic || p[message.PropertyCorrelationID] != "corr-1" ||
			p[message.PropertyPushReplyTime] == "" || h.StoreHost != b.BrokerAddr() {
			t.Fatalf("push %+v props %v body %q", h, p, req.Body)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("reply not pushed")
	}
	// storeReplyMessageEnable (default): the reply is stored too.
	if resp.Ext("queueOffset") != "0" || len(resp.Ext("msgId")) != 32 {
		t.Fatalf("response ext %v", resp.ExtFields)
	}
	readBack(t, b, replyTopic, 0, 0)

	// Unknown requester: SYSTEM_ERROR with Java's remark.
	props[message.PropertyMessageReplyToClient] = "nobody"
	resp = invoke(t, replier, addr, sendRequest(code.SendReplyMessage, sendHeader(replyTopic, 0, props), []byte("x")))
	wantCode(t, resp, code.SystemError)
	if resp.Remark != "push reply message fail, channel of <nobody> not found." {
		t.Fatalf("remark %q", resp.Remark)
	}
}
