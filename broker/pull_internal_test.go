package broker

import (
	"bytes"
	"testing"

	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// checkPullAnswer: a pull answer written from its fields has the bytes of
// the map-built one (PullMessageResponseHeader.ToExtFields, Java's HashMap
// order) in both serializations, and builds no map.
func checkPullAnswer(t *testing.T, c int32, remark string, rh header.PullMessageResponseHeader, body []byte) {
	t.Helper()
	for _, st := range []codec.SerializeType{codec.JSON, codec.RocketMQ} {
		got := newPullAnswer(c, remark, &rh)
		if got.ExtFields != nil || got.ExtSource == nil {
			t.Fatalf("answer built a map")
		}
		got.Body = body
		want := codec.NewResponse(c, remark)
		want.ExtFields, want.Body = rh.ToExtFields(), body
		got.SerializeType, want.SerializeType = st, st
		got.Opaque, want.Opaque = 77, 77
		gf, err1 := codec.Encode(got)
		wf, err2 := codec.Encode(want)
		if err1 != nil || err2 != nil || !bytes.Equal(gf, wf) {
			t.Fatalf("%v %+v: answer\n got %q\nwant %q (%v %v)", st, rh, gf, wf, err1, err2)
		}
	}
}

// TestBrokerPullAnswerMatchesMap covers the answer's codes and the header's
// extreme values.
func TestBrokerPullAnswerMatchesMap(t *testing.T) {
	for _, c := range []int32{code.Success, code.PullNotFound, code.PullRetryImmediately, code.PullOffsetMoved} {
		for _, rh := range []header.PullMessageResponseHeader{
			{},
			{SuggestWhichBrokerID: 1, NextBeginOffset: 32, MinOffset: 0, MaxOffset: 1024},
			{SuggestWhichBrokerID: -1, NextBeginOffset: 1<<63 - 1, MinOffset: -1 << 63, MaxOffset: 1<<33 + 7},
		} {
			checkPullAnswer(t, c, "FOUND", rh, []byte("body"))
		}
	}
}

// FuzzBrokerPullAnswerMatchesMap: any header values and remark.
func FuzzBrokerPullAnswerMatchesMap(f *testing.F) {
	f.Add(int32(0), "FOUND", int64(0), int64(32), int64(0), int64(1024))
	f.Add(int32(19), "NO_MATCHED_MESSAGE", int64(1), int64(-1), int64(1<<40), int64(-5))
	f.Fuzz(func(t *testing.T, c int32, remark string, s, n, lo, hi int64) {
		checkPullAnswer(t, c, remark, header.PullMessageResponseHeader{SuggestWhichBrokerID: s, NextBeginOffset: n, MinOffset: lo, MaxOffset: hi}, nil)
	})
}
