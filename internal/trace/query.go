package trace

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/rocketmq-go/rmq/internal/admin"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// queryMaxNum is the maxNum QueryMsgTraceById asks each broker for.
const queryMaxNum = 64

// ErrNoMessage is MQAdminImpl's "no message" failure of a key query.
var ErrNoMessage = errors.New("query message by key finished, but no message.") //nolint:revive,staticcheck // Java's text

// ErrNoRoute reports that no name server knew the trace topic.
var ErrNoRoute = errors.New("trace: no route")

// Query is one QueryMsgTraceById lookup.
type Query struct {
	Client       *remoting.Client
	NamesrvAddrs []string
	Topic        string // the trace topic; "" is DefaultTopic
	MsgID        string
}

// QueryTrace does what mqadmin queryMsgTraceById does: it reads the trace
// topic's route from the name servers, sends QUERY_MESSAGE with key=msgID to
// each broker group of the route (its master, else its lowest slave), keeps
// the trace messages of the trace topic whose keys include msgID, and
// decodes the records about msgID from them, in broker order then message
// order. Records that fail to decode are skipped; the first such error is
// returned with the views.
func QueryTrace(ctx context.Context, c *remoting.Client, namesrvAddrs []string, traceTopic, msgID string) ([]View, error) {
	return Query{Client: c, NamesrvAddrs: namesrvAddrs, Topic: traceTopic, MsgID: msgID}.Run(ctx)
}

// Run performs q (see QueryTrace).
func (q Query) Run(ctx context.Context) ([]View, error) {
	topic := cmp.Or(q.Topic, DefaultTopic)
	msgs, err := QueryMessageByKey(ctx, q.Client, q.NamesrvAddrs, topic, q.MsgID, queryMaxNum)
	if err != nil {
		return nil, err
	}
	var views []View
	var decodeErr error
	for _, m := range msgs {
		vs, err := ViewsOf(q.MsgID, m)
		views = append(views, vs...)
		if decodeErr == nil {
			decodeErr = err
		}
	}
	return views, decodeErr
}

// Route asks each name server in turn for topic's route.
func Route(ctx context.Context, c *remoting.Client, namesrvAddrs []string, topic string) (*body.TopicRouteData, error) {
	var errs []error
	for _, addr := range namesrvAddrs {
		req := codec.NewRequest(code.GetRouteinfoByTopic, (&header.GetRouteInfoRequestHeader{Topic: topic}).ToExtFields(), nil)
		resp, err := c.InvokeSync(ctx, addr, req)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if resp.Code != code.Success {
			errs = append(errs, fmt.Errorf("%s: %s %s", addr, code.ResponseName(resp.Code), resp.Remark))
			continue
		}
		return body.DecodeTopicRouteData(resp.Body)
	}
	return nil, fmt.Errorf("%w for topic %s: %w", ErrNoRoute, topic, errors.Join(errs...))
}

// QueryMessageByKey is MQAdminImpl.queryMessage with isUniqKey false: the
// messages of topic indexed under key on every broker group of the route,
// kept only when their topic is topic and their KEYS include key; broker
// groups in route order. No message at all is ErrNoMessage.
func QueryMessageByKey(ctx context.Context, c *remoting.Client, namesrvAddrs []string, topic, key string, maxNum int32) ([]*message.MessageExt, error) {
	route, err := Route(ctx, c, namesrvAddrs, topic)
	if err != nil {
		return nil, err
	}
	results := make([][]*message.MessageExt, len(route.BrokerDatas))
	var wg sync.WaitGroup
	for i := range route.BrokerDatas {
		addr := admin.SelectBrokerAddr(&route.BrokerDatas[i]) // the master, else the lowest slave
		if addr == "" {
			continue
		}
		wg.Go(func() { results[i] = queryBroker(ctx, c, addr, topic, key, maxNum) })
	}
	wg.Wait()
	var out []*message.MessageExt
	for _, ms := range results {
		for _, m := range ms {
			if m.Topic == topic && slices.Contains(javaSplit(m.Keys(), keySeparator), key) {
				out = append(out, m)
			}
		}
	}
	if len(out) == 0 {
		return nil, ErrNoMessage
	}
	return out, nil
}

// queryBroker sends one QUERY_MESSAGE; failures yield no messages, as
// Java's callback only logs them.
func queryBroker(ctx context.Context, c *remoting.Client, addr, topic, key string, maxNum int32) []*message.MessageExt {
	h := header.QueryMessageRequestHeader{Topic: topic, Key: key, MaxNum: maxNum, EndTimestamp: time.Now().UnixMilli()}
	ext := h.ToExtFields()
	ext["_UNIQUE_KEY_QUERY"] = strconv.FormatBool(false)
	resp, err := c.InvokeSync(ctx, addr, codec.NewRequest(code.QueryMessage, ext, nil))
	if err != nil || resp.Code != code.Success {
		return nil
	}
	ms, _ := message.DecodeRecords(resp.Body, true) // on damage, the records before it
	return ms
}
