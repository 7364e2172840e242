package proxy

// ForwardMessageToDeadLetterQueue: CONSUMER_SEND_MSG_BACK with delay level
// -1 (straight to the group's %DLQ%), then an ack of the popped message
// (5.x ForwardMessageToDLQActivity, ProducerProcessor.forwardMessageToDeadLetterQueue).

import (
	"context"
	"time"

	"go.uber.org/zap"

	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// toDLQ moves the message to the DLQ and acks it; the status is the
// broker's answer to the send-back.
func (c *consumer) toDLQ(ctx context.Context, h ReceiptHandle, msgID, group, topic string) *apiv2.Status {
	if h.CommitLogOffset < 0 {
		return &apiv2.Status{Code: apiv2.Code_INVALID_RECEIPT_HANDLE, Message: "commit log offset is empty"}
	}
	zero := int32(0)
	hdr := &header.ConsumerSendMsgBackRequestHeader{Offset: h.CommitLogOffset, Group: group, DelayLevel: -1,
		OriginMsgID: msgID, OriginTopic: h.RealTopic(topic, group), MaxReconsumeTimes: &zero, Bname: h.BrokerName}
	resp, err := c.backend.callBroker(ctx, h.BrokerName,
		codec.NewRequest(code.ConsumerSendMsgBack, hdr.ToExtFields(), nil))
	if err != nil {
		return statusOf(err)
	}
	if resp.Code == code.Success {
		if err := c.ack(ctx, h, group, topic); err != nil {
			c.lg.Warn("ack after forwarding to the DLQ failed", zap.String("msgId", msgID), zap.Error(err))
		}
	}
	return remotingStatus(resp.Code, resp.Remark)
}

// forwardToDLQ serves ForwardMessageToDeadLetterQueue for clientID.
func (c *consumer) forwardToDLQ(ctx context.Context, clientID string, req *apiv2.ForwardMessageToDeadLetterQueueRequest) *apiv2.ForwardMessageToDeadLetterQueueResponse {
	topic, group := req.GetTopic().GetName(), req.GetGroup().GetName()
	if err := validateTopicAndGroup(topic, group); err != nil {
		return &apiv2.ForwardMessageToDeadLetterQueueResponse{Status: statusOf(err)}
	}
	h, err := c.handleOf(ctx, clientID, group, req.GetMessageId(), req.GetReceiptHandle())
	if err != nil {
		return &apiv2.ForwardMessageToDeadLetterQueueResponse{Status: statusOf(err)}
	}
	return &apiv2.ForwardMessageToDeadLetterQueueResponse{Status: c.toDLQ(ctx, h, req.GetMessageId(), group, topic)}
}

// dlqQuietly forwards a message past its max attempts, logging failures.
func (c *consumer) dlqQuietly(base context.Context, h ReceiptHandle, msgID, group, topic string) {
	ctx, cancel := context.WithTimeout(base, 3*time.Second)
	defer cancel()
	if st := c.toDLQ(ctx, h, msgID, group, topic); st.GetCode() != apiv2.Code_OK {
		c.lg.Warn("forwarding to the DLQ failed", zap.String("msgId", msgID), zap.String("status", st.GetMessage()))
	}
}
