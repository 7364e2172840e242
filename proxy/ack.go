package proxy

// AckMessage and ChangeInvisibleDuration over ACK_MESSAGE (200051) and
// CHANGE_MESSAGE_INVISIBLETIME (200053) (5.x AckMessageActivity,
// ChangeInvisibleDurationActivity, ConsumerProcessor).

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// errExpiredHandle is 5.x's EXPIRED_HANDLE_PROXY_EXCEPTION.
var errExpiredHandle = errStatus(apiv2.Code_INVALID_RECEIPT_HANDLE, "receipt handle is expired")

// handleOf resolves the handle clientID sent: the proxy's newer handle when
// it has been renewing the message that client received with it, else the
// client's own.
func (c *consumer) handleOf(ctx context.Context, clientID, group, msgID, handle string) (ReceiptHandle, error) {
	if c.renew != nil {
		h, ok, err := c.renew.release(ctx, clientID, group, msgID, handle)
		if err != nil {
			return ReceiptHandle{}, err
		}
		if ok {
			handle = h
		}
	}
	h, err := ParseReceiptHandle(handle)
	if err != nil {
		return h, errStatus(apiv2.Code_INVALID_RECEIPT_HANDLE, "receipt handle is malformed")
	}
	return h, nil
}

// ack sends ACK_MESSAGE for one handle.
func (c *consumer) ack(ctx context.Context, h ReceiptHandle, group, topic string) error {
	if h.Expired(c.now()) {
		return errExpiredHandle
	}
	hdr := &header.AckMessageRequestHeader{ConsumerGroup: group, Topic: h.RealTopic(topic, group),
		QueueID: h.QueueID, ExtraInfo: h.Raw, Offset: h.Offset, Bname: h.BrokerName}
	resp, err := c.backend.callBroker(ctx, h.BrokerName, codec.NewRequest(code.AckMessage, hdr.ToExtFields(), nil))
	if err != nil {
		return err
	}
	if resp.Code != code.Success {
		// AckResult status NO_EXIST or a broker error: 5.x reports both so.
		return errStatus(apiv2.Code_INTERNAL_SERVER_ERROR, "ack failed: status is abnormal")
	}
	return nil
}

// ackConcurrency bounds the ACK_MESSAGE calls one AckMessage has in
// flight (5.x sends them as async calls without a thread each).
const ackConcurrency = 8

// ackMessage serves AckMessage for clientID: one ACK_MESSAGE per entry, at
// most ackConcurrency at once, with a status per entry and an overall one.
func (c *consumer) ackMessage(ctx context.Context, clientID string, req *apiv2.AckMessageRequest) *apiv2.AckMessageResponse {
	topic, group := req.GetTopic().GetName(), req.GetGroup().GetName()
	if err := validateTopicAndGroup(topic, group); err != nil {
		return &apiv2.AckMessageResponse{Status: statusOf(err)}
	}
	in := req.GetEntries()
	entries := make([]*apiv2.AckMessageResultEntry, len(in))
	var next atomic.Int64 // the next entry to ack
	var wg sync.WaitGroup
	for range min(len(in), ackConcurrency) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(in); i = int(next.Add(1) - 1) {
				e := in[i]
				h, err := c.handleOf(ctx, clientID, group, e.GetMessageId(), e.GetReceiptHandle())
				if err == nil {
					err = c.ack(ctx, h, group, topic)
				}
				entries[i] = &apiv2.AckMessageResultEntry{MessageId: e.GetMessageId(),
					ReceiptHandle: e.GetReceiptHandle(), Status: statusOf(err)}
			}
		}()
	}
	wg.Wait()
	return &apiv2.AckMessageResponse{Status: overallStatus(entries), Entries: entries}
}

// overallStatus: the entries' one code, MULTIPLE_RESULTS when they differ,
// INTERNAL_SERVER_ERROR for no entries (5.x setAckResponseStatus).
func overallStatus(entries []*apiv2.AckMessageResultEntry) *apiv2.Status {
	if len(entries) == 0 {
		return &apiv2.Status{Code: apiv2.Code_INTERNAL_SERVER_ERROR, Message: "ack message result is empty"}
	}
	first := entries[0].GetStatus().GetCode()
	for _, e := range entries[1:] {
		if e.GetStatus().GetCode() != first {
			return &apiv2.Status{Code: apiv2.Code_MULTIPLE_RESULTS, Message: apiv2.Code_MULTIPLE_RESULTS.String()}
		}
	}
	return &apiv2.Status{Code: first, Message: first.String()}
}

// changeInvisible sends CHANGE_MESSAGE_INVISIBLETIME and returns the new
// handle as a 5.x client builds it: the broker's new pop time, invisible
// time and revive queue, with the message's own queue offset as the new
// checkpoint's start (the broker wrote a checkpoint for just this message).
func (c *consumer) changeInvisible(ctx context.Context, h ReceiptHandle, group, topic string, ms int64) (ReceiptHandle, error) {
	if h.Expired(c.now()) {
		return h, errExpiredHandle
	}
	hdr := &header.ChangeInvisibleTimeRequestHeader{ConsumerGroup: group, Topic: h.RealTopic(topic, group),
		QueueID: h.QueueID, ExtraInfo: h.Raw, Offset: h.Offset, InvisibleTime: ms, Bname: h.BrokerName}
	resp, err := c.backend.callBroker(ctx, h.BrokerName,
		codec.NewRequest(code.ChangeMessageInvisibletime, hdr.ToExtFields(), nil))
	if err != nil {
		return h, err
	}
	if resp.Code != code.Success {
		return h, errStatus(apiv2.Code_INTERNAL_SERVER_ERROR, "changeInvisibleDuration failed: status is abnormal")
	}
	var rh header.ChangeInvisibleTimeResponseHeader
	if err := rh.FromExtFields(resp.ExtFields); err != nil {
		return h, errStatus(apiv2.Code_INTERNAL_SERVER_ERROR, "bad change invisible time response: "+err.Error())
	}
	n := h
	n.StartOffset, n.RetrieveTime, n.InvisibleTime, n.ReviveQueueID = h.Offset, rh.PopTime, rh.InvisibleTime, rh.ReviveQid
	n.Raw = extraInfo(n.StartOffset, n.RetrieveTime, n.InvisibleTime, n.ReviveQueueID, n.TopicType,
		n.BrokerName, n.QueueID, n.Offset)
	return n, nil
}

// changeInvisibleDuration serves ChangeInvisibleDuration for clientID.
func (c *consumer) changeInvisibleDuration(ctx context.Context, clientID string, req *apiv2.ChangeInvisibleDurationRequest) *apiv2.ChangeInvisibleDurationResponse {
	topic, group := req.GetTopic().GetName(), req.GetGroup().GetName()
	if err := validateTopicAndGroup(topic, group); err != nil {
		return &apiv2.ChangeInvisibleDurationResponse{Status: statusOf(err)}
	}
	ms := req.GetInvisibleDuration().AsDuration().Milliseconds()
	if err := c.checkInvisible(ms, 0); err != nil {
		return &apiv2.ChangeInvisibleDurationResponse{Status: statusOf(err)}
	}
	h, err := c.handleOf(ctx, clientID, group, req.GetMessageId(), req.GetReceiptHandle())
	if err == nil {
		h, err = c.changeInvisible(ctx, h, group, topic, ms)
	}
	if err != nil {
		return &apiv2.ChangeInvisibleDurationResponse{Status: statusOf(err)}
	}
	return &apiv2.ChangeInvisibleDurationResponse{Status: okStatus(), ReceiptHandle: h.Encode()}
}

// ackQuietly acks a message the client will not see (a tag the
// subscription does not take), logging failures.
func (c *consumer) ackQuietly(base context.Context, h ReceiptHandle, msgID, group, topic string) {
	ctx, cancel := context.WithTimeout(base, 3*time.Second)
	defer cancel()
	if err := c.ack(ctx, h, group, topic); err != nil {
		c.lg.Warn("ack of a filtered message failed", zap.String("msgId", msgID), zap.Error(err))
	}
}
