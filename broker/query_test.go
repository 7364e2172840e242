package broker_test

import (
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

func TestQueryMessageByKeyAndByID(t *testing.T) {
	e := newConsumeEnv(t)
	sent := e.send("QueryT", 0, map[string]string{"KEYS": "order-1 order-2", "TAGS": "T"}, "hello")
	e.send("QueryT", 1, map[string]string{"KEYS": "other"}, "x")
	e.waitDispatched("QueryT", 1, 1)
	q := func(key string, st codec.SerializeType) *codec.RemotingCommand {
		h := &header.QueryMessageRequestHeader{Topic: "QueryT", Key: key, MaxNum: 32, BeginTimestamp: 0,
			EndTimestamp: time.Now().Add(time.Minute).UnixMilli()}
		req := codec.NewRequest(code.QueryMessage, h.ToExtFields(), nil)
		req.SerializeType = st
		return e.call(req)
	}
	var resp *codec.RemotingCommand
	testutilEventually(t, func() bool { resp = q("order-2", codec.RocketMQ); return resp.Code == code.Success })
	ms := decodeBody(t, resp.Body)
	if len(ms) != 1 || string(ms[0].Body) != "hello" || ms[0].MsgID != sent.MsgID {
		t.Fatalf("query by key found %d messages (%q)", len(ms), bodies(ms))
	}
	if resp.SerializeType != codec.JSON {
		t.Errorf("query answer in %v, want the broker's JSON", resp.SerializeType)
	}
	var rh header.QueryMessageResponseHeader
	if err := rh.FromExtFields(resp.ExtFields); err != nil || rh.IndexLastUpdatePhyoffset <= 0 {
		t.Errorf("response header %v (%v)", resp.ExtFields, err)
	}
	resp = q("missing", codec.RocketMQ)
	e.expect(resp, code.QueryNotFound, "can not find message, maybe time range not correct")
	if resp.SerializeType != codec.RocketMQ {
		t.Errorf("not-found answer in %v, want the request's ROCKETMQ", resp.SerializeType)
	}
	if _, ok := resp.ExtFields["indexLastUpdateTimestamp"]; !ok {
		t.Errorf("not-found answer lacks the index header: %v", resp.ExtFields)
	}

	// VIEW_MESSAGE_BY_ID takes the commit-log offset out of the offsetMsgId.
	_, off, err := message.DecodeOffsetMsgID(sent.MsgID)
	if err != nil {
		t.Fatal(err)
	}
	view := codec.NewRequest(code.ViewMessageById, (&header.ViewMessageRequestHeader{Offset: off}).ToExtFields(), nil)
	resp = e.call(view)
	e.expect(resp, code.Success, "")
	if ms := decodeBody(t, resp.Body); len(ms) != 1 || string(ms[0].Body) != "hello" || ms[0].Keys() != "order-1 order-2" {
		t.Fatalf("view by id returned %q", bodies(ms))
	}
	view = codec.NewRequest(code.ViewMessageById, (&header.ViewMessageRequestHeader{Offset: 1 << 40}).ToExtFields(), nil)
	e.expect(e.call(view), code.SystemError, "can not find message by the offset, 1099511627776")
}

func TestQueryMessageByUniqueKeyUsesDefaultMax(t *testing.T) {
	e := newConsumeEnv(t)
	uniq := "0A0B0C0D00002A9F0000000000000001"
	e.send("UniqT", 0, map[string]string{"UNIQ_KEY": uniq}, "u")
	h := &header.QueryMessageRequestHeader{Topic: "UniqT", Key: uniq, MaxNum: 0, EndTimestamp: time.Now().Add(time.Minute).UnixMilli()}
	req := codec.NewRequest(code.QueryMessage, h.ToExtFields(), nil)
	req.SetExt("_UNIQUE_KEY_QUERY", "true")
	var resp *codec.RemotingCommand
	testutilEventually(t, func() bool { resp = e.call(req); return resp.Code == code.Success })
	if ms := decodeBody(t, resp.Body); len(ms) != 1 || string(ms[0].Body) != "u" {
		t.Fatalf("unique key query returned %q", bodies(ms))
	}
}
