package broker

// SEND_REPLY_MESSAGE (324) and SEND_REPLY_MESSAGE_V2 (325):
// ReplyMessageProcessor (4.9.8). The reply is pushed to the requesting
// producer's channel (PUSH_REPLY_MESSAGE_TO_CLIENT, found by the
// REPLY_TO_CLIENT client id) and, with storeReplyMessageEnable, stored too.

import (
	"context"
	"net/netip"
	"strconv"
	"time"

	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// pushReplyTimeout is Broker2Client.callClient's 10 s.
const pushReplyTimeout = 10 * time.Second

func (b *Broker) processReply(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	h, err := header.DecodeSendMessageRequestHeader(req.Code, req.ExtFields)
	if err != nil {
		return nil, err
	}
	tgt, resp := b.preSend(ctx, h)
	if resp != nil {
		return resp, nil
	}
	m := &message.MessageExt{
		Message:          message.Message{Topic: h.Topic, Flag: h.Flag, Body: req.Body},
		PropertiesString: h.Properties,
		QueueID:          tgt.queueID,
		BornTimestamp:    h.BornTimestamp,
		BornHost:         bornHost(ctx.Channel),
		StoreHost:        b.storeHost(),
	}
	if h.ReconsumeTimes != nil {
		m.ReconsumeTimes = *h.ReconsumeTimes
	}
	resp = b.newSendResponse(code.Success, "")
	if remark, ok := b.pushReply(h, m); !ok {
		resp.Code, resp.Remark = code.SystemError, remark
	} else {
		setSendHeader(resp, "0", tgt.queueID, 0)
	}
	if b.Config().StoreReplyMessageEnable {
		r := b.store.PutMessage(m)
		b.countPut(m.Topic, m.QueueID, r) // send.go: BrokerStatsManager
		if _, _, stored := b.putStatusResponse(r.Status); stored {
			setSendHeader(resp, r.Append.MsgID, tgt.queueID, r.Append.LogicsOffset)
		}
	}
	return resp, nil
}

func setSendHeader(resp *codec.RemotingCommand, msgID string, queueID int32, queueOffset int64) {
	rh := header.SendMessageResponseHeader{MsgID: msgID, QueueID: queueID, QueueOffset: queueOffset}
	for k, v := range rh.ToExtFields() {
		resp.SetExt(k, v)
	}
}

// pushReply is ReplyMessageProcessor.pushReplyMessage; it reports the
// failure remark when the push did not succeed.
func (b *Broker) pushReply(h *header.SendMessageRequestHeader, m *message.MessageExt) (string, bool) {
	ph := &header.ReplyMessageRequestHeader{
		ProducerGroup: h.ProducerGroup, Topic: h.Topic, DefaultTopic: h.DefaultTopic,
		DefaultTopicQueueNums: h.DefaultTopicQueueNums, QueueID: h.QueueID, SysFlag: h.SysFlag,
		BornTimestamp: h.BornTimestamp, Flag: h.Flag, Properties: h.Properties,
		ReconsumeTimes: h.ReconsumeTimes, UnitMode: h.UnitMode,
		BornHost: hostString(m.BornHost), StoreHost: hostString(m.StoreHost), StoreTimestamp: time.Now().UnixMilli(),
	}
	sender := message.PropertyValue(h.Properties, message.PropertyMessageReplyToClient)
	if sender == "" {
		return "reply message properties[" + message.PropertyMessageReplyToClient + "] is null", false
	}
	ch, _ := b.producers.FindChannel(sender).(*remoting.Channel)
	if ch == nil {
		return "push reply message fail, channel of <" + sender + "> not found.", false
	}
	props := message.ParseHashMapProperties(h.Properties)
	props.Put(message.PropertyPushReplyTime, strconv.FormatInt(time.Now().UnixMilli(), 10))
	ph.Properties = props.String()
	ctx, cancel := context.WithTimeout(context.Background(), pushReplyTimeout)
	defer cancel()
	resp, err := ch.InvokeSync(ctx, b.newBrokerRequest(code.PushReplyMessageToClient, ph.ToExtFields(), m.Body))
	if err != nil || resp.Code != code.Success {
		return "push reply message to " + sender + "fail.", false
	}
	return "", true
}

// hostString is InetSocketAddress's "ip:port" as Java prints it.
func hostString(ap netip.AddrPort) string {
	return ap.Addr().Unmap().String() + ":" + strconv.Itoa(int(ap.Port()))
}
