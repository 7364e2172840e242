package admin

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// TopicStats is GET_TOPIC_STATS_INFO on every broker group of the topic's
// route, merged (examineTopicStats): min/max offset per queue.
func (a *Admin) TopicStats(ctx context.Context, topic string) (map[body.MessageQueue]body.TopicOffset, error) {
	brokers, err := a.routeBrokers(ctx, topic)
	if err != nil {
		return nil, err
	}
	out := map[body.MessageQueue]body.TopicOffset{}
	ext := (&header.GetTopicStatsInfoRequestHeader{Topic: topic}).ToExtFields()
	for _, addr := range sortedAddrs(brokers) {
		resp, err := a.invoke(ctx, addr, codec.NewRequest(code.GetTopicStatsInfo, ext, nil))
		if err != nil {
			return nil, err
		}
		var ts body.TopicStatsTable
		if err := ts.Decode(resp.Body); err != nil {
			return nil, fmt.Errorf("%w: topic stats of %q from %s: %w", ErrBadResponse, topic, addr, err)
		}
		for mq, off := range ts.OffsetTable {
			out[mq] = off
		}
	}
	return out, nil
}

// ConsumeStats is GET_CONSUME_STATS on every broker of the group
// (examineConsumeStats): per queue broker and consumer offsets, summed
// consumeTps. topic "" means every topic the group has offsets for. A group
// with no offsets anywhere is ErrNotOnline, as in Java.
func (a *Admin) ConsumeStats(ctx context.Context, group, topic string) (*body.ConsumeStats, error) {
	brokers, err := a.groupBrokers(ctx, group)
	if err != nil {
		return nil, err
	}
	out := &body.ConsumeStats{OffsetTable: map[body.MessageQueue]body.OffsetWrapper{}}
	ext := (&header.GetConsumeStatsRequestHeader{ConsumerGroup: group, Topic: topic}).ToExtFields()
	for _, addr := range sortedAddrs(brokers) {
		resp, err := a.invoke(ctx, addr, codec.NewRequest(code.GetConsumeStats, ext, nil))
		if err != nil {
			return nil, err
		}
		var cs body.ConsumeStats
		if err := cs.Decode(resp.Body); err != nil {
			return nil, fmt.Errorf("%w: consume stats of %q from %s: %w", ErrBadResponse, group, addr, err)
		}
		for mq, w := range cs.OffsetTable {
			out.OffsetTable[mq] = w
		}
		out.ConsumeTps += cs.ConsumeTps
	}
	if len(out.OffsetTable) == 0 {
		return out, fmt.Errorf("%w: %q has no consume offsets", ErrNotOnline, group)
	}
	return out, nil
}

// ConsumerConnection is GET_CONSUMER_CONNECTION_LIST
// (examineConsumerConnectionInfo): the first broker of the group that knows
// its connected consumers answers. No consumer online is ErrNotOnline.
func (a *Admin) ConsumerConnection(ctx context.Context, group string) (*body.ConsumerConnection, error) {
	brokers, err := a.groupBrokers(ctx, group)
	if err != nil {
		return nil, err
	}
	ext := (&header.GetConsumerConnectionListRequestHeader{ConsumerGroup: group}).ToExtFields()
	var errs []error
	for _, addr := range sortedAddrs(brokers) {
		resp, err := a.invoke(ctx, addr, codec.NewRequest(code.GetConsumerConnectionList, ext, nil))
		var we *remoting.Error
		if errors.As(err, &we) && we.Code == code.ConsumerNotOnline {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		cc, err := body.DecodeConsumerConnection(resp.Body)
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: %w", ErrBadResponse, err))
			continue
		}
		if len(cc.ConnectionSet) > 0 {
			return cc, nil
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return nil, fmt.Errorf("%w: %q has no connected consumer", ErrNotOnline, group)
}

// splitKeys splits a KEYS property (MessageConst.KEY_SEPARATOR is a space).
func splitKeys(keys string) []string { return strings.Split(keys, " ") }
