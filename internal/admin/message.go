package admin

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// uniqueMsgQueryFlag is MixAll.UNIQUE_MSG_QUERY_FLAG: QUERY_MESSAGE by
// UNIQ_KEY.
const uniqueMsgQueryFlag = "_UNIQUE_KEY_QUERY"

// DefaultQueryMaxNum is how many messages a key query asks each broker for
// (the dashboard's 64).
const DefaultQueryMaxNum = 64

// ViewMessage finds a message by id as DefaultMQAdminExt.viewMessage(topic,
// msgId) does: an offsetMsgId is decoded to a broker address and commit-log
// offset and read with VIEW_MESSAGE_BY_ID; otherwise (or when that finds
// nothing) the id is taken as a client id (UNIQ_KEY) and looked up with
// QUERY_MESSAGE on every broker of topic's route. Unlike Java, only brokers
// the name server knows are dialled, so a crafted id cannot make us connect
// anywhere else. topic may be empty for an offsetMsgId.
func (a *Admin) ViewMessage(ctx context.Context, topic, id string) (*message.MessageExt, error) {
	if addr, off, ok := decodeOffsetMsgID(id); ok {
		known, err := a.clusterAddrs(ctx)
		if err != nil {
			return nil, err
		}
		if slices.Contains(known, addr) {
			m, err := a.viewByOffset(ctx, addr, off)
			if err == nil && m.MsgID == id && (topic == "" || m.Topic == topic) {
				return m, nil
			}
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
		}
	}
	if topic == "" {
		return nil, fmt.Errorf("%w: message %q (a client id needs its topic)", ErrNotFound, id)
	}
	msgs, err := a.queryMessage(ctx, topic, id, DefaultQueryMaxNum, true)
	if err != nil {
		return nil, err
	}
	if len(msgs) == 0 {
		return nil, fmt.Errorf("%w: message %q in topic %q", ErrNotFound, id, topic)
	}
	return msgs[0], nil
}

// QueryMessageByKey is QUERY_MESSAGE by key (queryMessage): up to maxNum
// messages of topic per broker whose KEYS hold key.
func (a *Admin) QueryMessageByKey(ctx context.Context, topic, key string, maxNum int) ([]*message.MessageExt, error) {
	return a.queryMessage(ctx, topic, key, maxNum, false)
}

// decodeOffsetMsgID decodes an offsetMsgId into the broker address and
// commit-log offset, refusing ids whose port field is not a port.
func decodeOffsetMsgID(id string) (string, int64, bool) {
	host, off, err := message.DecodeOffsetMsgID(id)
	if err != nil {
		return "", 0, false
	}
	raw, _ := hex.DecodeString(id)
	ipLen := len(raw) - 12
	if raw[ipLen] != 0 || raw[ipLen+1] != 0 || off < 0 {
		return "", 0, false
	}
	return host.String(), off, true
}

func (a *Admin) viewByOffset(ctx context.Context, addr string, off int64) (*message.MessageExt, error) {
	ext := (&header.ViewMessageRequestHeader{Offset: off}).ToExtFields()
	resp, err := a.invoke(ctx, addr, codec.NewRequest(code.ViewMessageById, ext, nil))
	if err != nil {
		return nil, err
	}
	m, err := message.DecodeRecord(resp.Body, true)
	if err != nil {
		return nil, fmt.Errorf("%w: message at %d on %s: %w", ErrBadResponse, off, addr, err)
	}
	return m, nil
}

// clusterAddrs lists every broker address the name server knows.
func (a *Admin) clusterAddrs(ctx context.Context) ([]string, error) {
	ci, err := a.ClusterInfo(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, bd := range ci.BrokerAddrTable {
		if bd == nil {
			continue
		}
		for _, addr := range bd.BrokerAddrs {
			out = append(out, addr)
		}
	}
	return out, nil
}

// queryMessage asks every broker of topic's route and keeps the messages
// that really carry key (index slots are hashes: MQAdminImpl's check).
func (a *Admin) queryMessage(ctx context.Context, topic, key string, maxNum int, uniq bool) ([]*message.MessageExt, error) {
	brokers, err := a.routeBrokers(ctx, topic)
	if err != nil {
		return nil, err
	}
	h := header.QueryMessageRequestHeader{Topic: topic, Key: key, MaxNum: int32(min(maxNum, math.MaxInt32)),
		BeginTimestamp: 0, EndTimestamp: math.MaxInt64}
	var out []*message.MessageExt
	for _, addr := range sortedAddrs(brokers) {
		req := codec.NewRequest(code.QueryMessage, h.ToExtFields(), nil)
		if uniq {
			req.SetExt(uniqueMsgQueryFlag, "true")
		}
		resp, err := a.invoke(ctx, addr, req, code.Success, code.QueryNotFound)
		if err != nil {
			var we *remoting.Error
			if errors.As(err, &we) {
				continue // this broker cannot answer; Java skips it too
			}
			return nil, err
		}
		if resp.Code != code.Success {
			continue
		}
		msgs, err := message.DecodeRecords(resp.Body, true)
		if err != nil {
			return nil, fmt.Errorf("%w: query %q on %s: %w", ErrBadResponse, key, addr, err)
		}
		for _, m := range msgs {
			if m.Topic == topic && carriesKey(m, key, uniq) {
				out = append(out, m)
			}
		}
	}
	return out, nil
}

func carriesKey(m *message.MessageExt, key string, uniq bool) bool {
	if uniq {
		return m.Property(message.PropertyUniqClientMessageIDKeyidx) == key
	}
	return slices.Contains(splitKeys(m.Keys()), key)
}
