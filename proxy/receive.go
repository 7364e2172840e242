package proxy

// ReceiveMessage: long-polling POP_MESSAGE to one broker, answered as a
// server stream of a status, the messages, then a delivery timestamp
// (5.x ReceiveMessageActivity + ReceiveMessageResponseStreamWriter).

import (
	"context"
	"strconv"
	"time"

	"go.uber.org/zap"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/rocketmq-go/rmq/internal/filter"
	"github.com/rocketmq-go/rmq/internal/message"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// illegalPollingTimeSince is the first client version that knows
// ILLEGAL_POLLING_TIME; older clients get BAD_REQUEST.
const illegalPollingTimeSince = "5.0.3"

// nackInvisible is the invisible time given back to messages that could
// not be written to the stream.
const nackInvisible = time.Second

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// pollingTime computes how long the broker may hold the pop, from the
// request, the client's request timeout and the time left before the
// call's deadline.
func (c *consumer) pollingTime(ctx context.Context, req *apiv2.ReceiveMessageRequest, set consumerSettings,
	clientVersion string) (time.Duration, error) {
	minPoll := time.Duration(c.cfg.MinLongPollingTimeoutMillis) * time.Millisecond
	maxPoll := time.Duration(c.cfg.MaxLongPollingTimeoutMillis) * time.Millisecond
	remaining := maxPoll + set.requestTimeout
	if dl, ok := ctx.Deadline(); ok {
		remaining = time.Until(dl)
	}
	var poll time.Duration
	if req.LongPollingTimeout != nil {
		poll = req.LongPollingTimeout.AsDuration()
	} else {
		poll = remaining - set.requestTimeout/2
	}
	poll = max(min(poll, maxPoll), minPoll)
	if poll > remaining {
		if remaining < minPoll {
			cd := apiv2.Code_ILLEGAL_POLLING_TIME
			if clientVersion == "" || clientVersion < illegalPollingTimeSince {
				cd = apiv2.Code_BAD_REQUEST
			}
			return 0, errStatus(cd, "The deadline time remaining is not enough for polling, please check network condition")
		}
		poll = remaining
	}
	return poll, nil
}

// invisibleTime is the invisible time to pop with.
func (c *consumer) invisibleTime(req *apiv2.ReceiveMessageRequest) (int64, error) {
	if c.cfg.EnableProxyAutoRenew && req.GetAutoRenew() {
		return c.cfg.DefaultInvisibleTimeMills, nil
	}
	ms := req.GetInvisibleDuration().AsDuration().Milliseconds()
	return ms, c.checkInvisible(ms, c.cfg.MinInvisibleTimeMillsForRecv)
}

func (c *consumer) checkInvisible(ms, minMs int64) error {
	if ms < minMs {
		return errStatus(apiv2.Code_ILLEGAL_INVISIBLE_TIME, "the invisibleTime is too small. min is "+itoa(minMs))
	}
	if c.cfg.MaxInvisibleTimeMills > 0 && ms > c.cfg.MaxInvisibleTimeMills {
		return errStatus(apiv2.Code_ILLEGAL_INVISIBLE_TIME, "the invisibleTime is too large. max is "+itoa(c.cfg.MaxInvisibleTimeMills))
	}
	return nil
}

// receive serves one ReceiveMessage; send writes one stream frame. It
// always ends with a delivery_timestamp frame, as 5.x does, and returns
// only errors of the stream itself.
func (c *consumer) receive(ctx context.Context, req *apiv2.ReceiveMessageRequest, set consumerSettings,
	clientVersion string, send func(*apiv2.ReceiveMessageResponse) error) error {
	st, msgs := c.pop(ctx, req, set, clientVersion)
	err := send(&apiv2.ReceiveMessageResponse{Content: &apiv2.ReceiveMessageResponse_Status{Status: st}})
	for i, m := range msgs {
		if err == nil {
			err = send(&apiv2.ReceiveMessageResponse{Content: &apiv2.ReceiveMessageResponse_Message{
				Message: toV2Message(m, c.now().UnixMilli())}})
			if err == nil {
				continue
			}
		}
		// The client will never see the rest: make them visible again soon.
		c.nack(context.WithoutCancel(ctx), set.clientID, req, msgs[i:])
		break
	}
	if err != nil {
		return err
	}
	return send(&apiv2.ReceiveMessageResponse{Content: &apiv2.ReceiveMessageResponse_DeliveryTimestamp{
		DeliveryTimestamp: timestamppb.New(c.now())}})
}

// pop validates the request, pops from the chosen broker and filters the
// result; it returns the status frame and the messages to deliver.
func (c *consumer) pop(ctx context.Context, req *apiv2.ReceiveMessageRequest, set consumerSettings,
	clientVersion string) (*apiv2.Status, []*message.MessageExt) {
	h, err := c.popRequest(ctx, req, set, clientVersion)
	if err != nil {
		return statusOf(err), nil
	}
	topic, group, brokerName := h.Topic, h.ConsumerGroup, h.Bname
	exp, expType := h.Exp, h.ExpType
	// Follow-up broker calls outlive the request but act for its client:
	// they keep its credentials (ACL signing), not its cancellation.
	detached := context.WithoutCancel(ctx)
	resp, err := c.backend.callBrokerLate(ctx, brokerName, codec.NewRequest(code.PopMessage, h.ToExtFields(), nil),
		func(late *codec.RemotingCommand) { c.nackLate(detached, late, group, topic, brokerName, h.Order) })
	if err != nil {
		return statusOf(err), nil
	}
	switch resp.Code {
	case code.Success:
	case code.PollingFull:
		return &apiv2.Status{Code: apiv2.Code_TOO_MANY_REQUESTS, Message: "polling full"}, nil
	case code.PollingTimeout, code.PullNotFound:
		return &apiv2.Status{Code: apiv2.Code_MESSAGE_NOT_FOUND, Message: "no new message"}, nil
	default:
		return remotingStatus(resp.Code, resp.Remark), nil
	}
	msgs, err := c.decodePopped(resp, topic, brokerName, set.fifo)
	if err != nil {
		return statusOf(err), nil
	}
	msgs = c.screen(detached, msgs, group, topic, exp, expType, set)
	if len(msgs) == 0 {
		return &apiv2.Status{Code: apiv2.Code_MESSAGE_NOT_FOUND, Message: "no match message"}, nil
	}
	if c.renew != nil && c.cfg.EnableProxyAutoRenew && req.GetAutoRenew() {
		c.renew.hold(ctx, set.clientID, group, topic, msgs)
	}
	return okStatus(), msgs
}

// popRequest checks a ReceiveMessage as 5.x does (polling time, names,
// invisible time, filter) and builds its POP_MESSAGE header.
func (c *consumer) popRequest(ctx context.Context, req *apiv2.ReceiveMessageRequest, set consumerSettings,
	clientVersion string) (*header.PopMessageRequestHeader, error) {
	poll, err := c.pollingTime(ctx, req, set, clientVersion)
	if err != nil {
		return nil, err
	}
	topic, group := req.GetMessageQueue().GetTopic().GetName(), req.GetGroup().GetName()
	if err := validateTopicAndGroup(topic, group); err != nil {
		return nil, err
	}
	invisible, err := c.invisibleTime(req)
	if err != nil {
		return nil, err
	}
	expType, exp := filterExpressionOf(req.GetFilterExpression())
	if expType == filter.ExpressionTypeSQL92 {
		if _, err := filter.CompileSQL92(exp); err != nil {
			return nil, errStatus(apiv2.Code_ILLEGAL_FILTER_EXPRESSION, err.Error())
		}
	}
	brokerName, err := c.readBroker(ctx, topic, req.GetMessageQueue().GetBroker().GetName())
	if err != nil {
		return nil, err
	}
	batch := req.GetBatchSize()
	if batch <= 0 || batch > maxPopBatch {
		batch = maxPopBatch
	}
	return &header.PopMessageRequestHeader{
		ConsumerGroup: group, Topic: topic, QueueID: -1, MaxMsgNums: batch,
		InvisibleTime: invisible, PollTime: poll.Milliseconds(), BornTime: c.now().UnixMilli(),
		InitMode: 1, ExpType: expType, Exp: exp, Order: set.fifo, AttemptID: req.GetAttemptId(), Bname: brokerName,
	}, nil
}

// decodePopped decodes a successful POP answer and gives each message its
// receipt handle.
func (c *consumer) decodePopped(resp *codec.RemotingCommand, topic, brokerName string, order bool) ([]*message.MessageExt, error) {
	var h header.PopMessageResponseHeader
	if err := h.FromExtFields(resp.ExtFields); err != nil {
		return nil, errStatus(apiv2.Code_INTERNAL_SERVER_ERROR, "bad pop response header: "+err.Error())
	}
	msgs, err := message.DecodeRecords(resp.Body, true)
	if err != nil {
		return nil, errStatus(apiv2.Code_INTERNAL_SERVER_ERROR, "bad pop response body: "+err.Error())
	}
	assignReceiptHandles(msgs, &h, topic, brokerName, order)
	return msgs, nil
}

// screen drops, as 5.x's PopMessageResultFilterImpl does, messages whose tag
// the subscription does not take (acked) and messages past the client's
// max attempts (forwarded to the DLQ); the rest are delivered.
func (c *consumer) screen(base context.Context, msgs []*message.MessageExt, group, topic, exp, expType string,
	set consumerSettings) []*message.MessageExt {
	var tags filter.TagSubscription
	if expType == filter.ExpressionTypeTag {
		tags = filter.ParseTags(exp)
	}
	out := msgs[:0]
	for _, m := range msgs {
		h, err := ParseReceiptHandle(m.Properties[propPopCK])
		switch {
		case err != nil:
			out = append(out, m)
		case !tagMatched(tags, m.Properties[message.PropertyTags]):
			c.spawn(func() { c.ackQuietly(base, h, messageIDOf(m), group, topic) })
		case set.maxAttempts > 0 && m.ReconsumeTimes >= set.maxAttempts:
			c.spawn(func() { c.dlqQuietly(base, h, messageIDOf(m), group, topic) })
		default:
			out = append(out, m)
		}
	}
	return out
}

// readBroker picks the broker to pop from: the one the request names when
// it serves readable queues of topic, else the next readable one.
func (c *consumer) readBroker(ctx context.Context, topic, named string) (string, error) {
	route, err := c.backend.topicRoute(ctx, topic)
	if err != nil {
		return "", err
	}
	var readable []string
	for _, qd := range route.QueueDatas {
		if qd.Perm&permRead == 0 || qd.ReadQueueNums <= 0 || !hasMaster(route, qd.BrokerName) {
			continue
		}
		if qd.BrokerName == named {
			return named, nil
		}
		readable = append(readable, qd.BrokerName)
	}
	if len(readable) == 0 {
		return "", errStatus(apiv2.Code_FORBIDDEN, "no readable queue")
	}
	return readable[int(c.rr.Add(1)%uint32(len(readable)))], nil
}

// nackLate gives back what a pop found after its client left: those
// messages would otherwise stay invisible for the whole invisible time.
func (c *consumer) nackLate(base context.Context, resp *codec.RemotingCommand, group, topic, brokerName string, order bool) {
	if resp.Code != code.Success {
		return
	}
	msgs, err := c.decodePopped(resp, topic, brokerName, order)
	if err != nil {
		return
	}
	c.nackMessages(base, "", group, topic, msgs)
}

// nack makes messages the client never got visible again after a second.
func (c *consumer) nack(base context.Context, clientID string, req *apiv2.ReceiveMessageRequest, msgs []*message.MessageExt) {
	c.nackMessages(base, clientID, req.GetGroup().GetName(), req.GetMessageQueue().GetTopic().GetName(), msgs)
}

// nackMessages gives msgs back; those held for clientID's auto renewal
// stop being renewed.
func (c *consumer) nackMessages(base context.Context, clientID, group, topic string, msgs []*message.MessageExt) {
	for _, m := range msgs {
		raw := m.Properties[propPopCK]
		h, err := ParseReceiptHandle(raw)
		if err != nil {
			continue
		}
		id := messageIDOf(m)
		c.spawn(func() { // off the caller: release may wait for a renewal
			ctx, cancel := context.WithTimeout(base, 2*renewCallTimeout)
			defer cancel()
			if c.renew != nil {
				if s, ok, _ := c.renew.release(ctx, clientID, group, id, raw); ok {
					if nh, err := ParseReceiptHandle(s); err == nil {
						h = nh
					}
				}
			}
			if _, err := c.changeInvisible(ctx, h, group, topic, nackInvisible.Milliseconds()); err != nil {
				c.lg.Warn("nack of an unsent message failed", zap.String("topic", topic), zap.Error(err))
			}
		})
	}
}

// tagMatched: a subscription without tags takes everything; otherwise the
// message's tag must be one of them (5.x FilterUtils.isTagMatched).
func tagMatched(ts filter.TagSubscription, tag string) bool {
	if len(ts.Tags) == 0 {
		return true
	}
	for _, t := range ts.Tags {
		if t == tag {
			return true
		}
	}
	return false
}
