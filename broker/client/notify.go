package client

// DefaultConsumerIdsChangeListener and Broker2Client.notifyConsumerIdsChanged.

import (
	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// FilterRegistry is the consumer filter manager as the listener sees it
// (broker/filter.ConsumerFilterManager implements it).
type FilterRegistry interface {
	Register(group string, subs []body.SubscriptionData)
	Unregister(group string)
}

// DefaultConsumerIdsChangeListener mirrors Java's: CHANGE sends
// NOTIFY_CONSUMER_IDS_CHANGED to each remaining channel when NotifyEnabled
// says so (brokerConfig.notifyConsumerIdsChangedEnable); REGISTER and
// UNREGISTER feed the consumer filter manager.
type DefaultConsumerIdsChangeListener struct {
	NotifyEnabled func() bool         // nil: always notify
	Filters       FilterRegistry      // nil: no SQL92 bookkeeping
	SerializeType codec.SerializeType // the broker's own serialization for requests it starts
	Logger        *zap.Logger         // nil: no logging
}

var _ ConsumerIdsChangeListener = (*DefaultConsumerIdsChangeListener)(nil)

// Handle implements ConsumerIdsChangeListener.
func (l *DefaultConsumerIdsChangeListener) Handle(event ConsumerGroupEvent, group string, channels []Channel, subs []body.SubscriptionData) {
	switch event {
	case EventChange:
		if l.NotifyEnabled != nil && !l.NotifyEnabled() {
			return
		}
		for _, ch := range channels {
			l.notify(ch, group)
		}
	case EventUnregister:
		if l.Filters != nil {
			l.Filters.Unregister(group)
		}
	case EventRegister:
		if l.Filters != nil {
			l.Filters.Register(group, subs)
		}
	}
}

func (l *DefaultConsumerIdsChangeListener) notify(ch Channel, group string) {
	req := NewNotifyConsumerIdsChangedRequest(group)
	req.SerializeType = l.SerializeType
	if err := ch.InvokeOneway(req); err != nil && l.Logger != nil {
		l.Logger.Error("notifyConsumerIdsChanged exception", zap.String("group", group),
			zap.String("remoteAddr", ch.RemoteAddr()), zap.Error(err))
	}
}

// NewNotifyConsumerIdsChangedRequest builds the oneway
// NOTIFY_CONSUMER_IDS_CHANGED request for group (Broker2Client).
func NewNotifyConsumerIdsChangedRequest(group string) *codec.RemotingCommand {
	h := &header.NotifyConsumerIdsChangedRequestHeader{ConsumerGroup: group}
	req := codec.NewRequest(code.NotifyConsumerIdsChanged, h.ToExtFields(), nil)
	req.MarkOneway()
	return req
}
