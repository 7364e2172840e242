package compat

import (
	"math"
	"strconv"
	"testing"

	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// Consumer offsets (Java ConsumerManageProcessor) and queue offset lookups
// (AdminBrokerProcessor getMaxOffset / getMinOffset / searchOffsetByTimestamp).

func queryOffsetExt(group, topic string, qid int) map[string]string {
	return map[string]string{"consumerGroup": group, "topic": topic, "queueId": strconv.Itoa(qid)}
}

func TestCompatConsumerOffset(t *testing.T) {
	tg := newTarget(t)
	topic := pullTopic(t, tg, 2)
	forEachSer(t, func(t *testing.T, ser codec.SerializeType) {
		group := uniq("compat_offset_cg")
		// A group that never committed: the queue's first message is still
		// in memory (or the queue is empty), so the answer is offset 0.
		for qid := range 2 {
			resp := tg.mustCall(t, tg.BrokerAddr, request(code.QueryConsumerOffset, queryOffsetExt(group, topic, qid), nil, ser))
			wantCode(t, resp, code.Success, "")
			wantSer(t, resp, ser)
			if got := extInt64(t, resp, "offset"); got != 0 {
				t.Fatalf("new group, queue %d: offset %d, want 0", qid, got)
			}
		}
		upd := queryOffsetExt(group, topic, 0)
		upd["commitOffset"] = "2"
		resp := tg.mustCall(t, tg.BrokerAddr, request(code.UpdateConsumerOffset, upd, nil, ser))
		wantCode(t, resp, code.Success, "")
		wantSer(t, resp, ser)
		if len(resp.ExtFields) != 0 || len(resp.Body) != 0 {
			t.Fatalf("UPDATE_CONSUMER_OFFSET reply carries ext %v body %q", resp.ExtFields, resp.Body)
		}
		resp = tg.mustCall(t, tg.BrokerAddr, request(code.QueryConsumerOffset, queryOffsetExt(group, topic, 0), nil, ser))
		wantCode(t, resp, code.Success, "")
		if got := extInt64(t, resp, "offset"); got != 2 {
			t.Fatalf("offset after UPDATE_CONSUMER_OFFSET 2: %d", got)
		}
		// Other queues of the group are untouched.
		resp = tg.mustCall(t, tg.BrokerAddr, request(code.QueryConsumerOffset, queryOffsetExt(group, topic, 1), nil, ser))
		if got := extInt64(t, resp, "offset"); resp.Code != code.Success || got != 0 {
			t.Fatalf("queue 1: code %d offset %d", resp.Code, got)
		}
	})
}

func TestCompatMaxMinOffset(t *testing.T) {
	tg := newTarget(t)
	topic := pullTopic(t, tg, 3)
	cases := []struct {
		name     string
		topic    string
		qid      int
		max, min int64
	}{
		{"Filled", topic, 0, 3, 0},
		{"EmptyQueue", topic, 3, 0, 0},
		{"UnknownTopic", uniq("CompatNoOffsets"), 0, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			forEachSer(t, func(t *testing.T, ser codec.SerializeType) {
				ext := map[string]string{"topic": c.topic, "queueId": strconv.Itoa(c.qid)}
				resp := tg.mustCall(t, tg.BrokerAddr, request(code.GetMaxOffset, ext, nil, ser))
				wantCode(t, resp, code.Success, "")
				wantSer(t, resp, ser)
				if got := extInt64(t, resp, "offset"); got != c.max {
					t.Fatalf("GET_MAX_OFFSET %d, want %d", got, c.max)
				}
				resp = tg.mustCall(t, tg.BrokerAddr, request(code.GetMinOffset, ext, nil, ser))
				wantCode(t, resp, code.Success, "")
				wantSer(t, resp, ser)
				if got := extInt64(t, resp, "offset"); got != c.min {
					t.Fatalf("GET_MIN_OFFSET %d, want %d", got, c.min)
				}
			})
		})
	}
}

func TestCompatSearchOffsetByTimestamp(t *testing.T) {
	tg := newTarget(t)
	topic := pullTopic(t, tg, 3)
	resp := tg.mustCall(t, tg.BrokerAddr, codec.NewRequest(code.PullMessage, pullExt(uniq("compat_search_cg"), topic, 0, 0, pullFlagSubscription), nil))
	wantCode(t, resp, code.Success, "FOUND")
	msgs := decodeRecords(t, resp.Body)
	stored := map[int64]int64{} // queue offset → store timestamp
	for _, m := range msgs {
		stored[m.QueueOffset] = m.StoreTimestamp
	}
	search := func(t *testing.T, ts int64, ser codec.SerializeType) int64 {
		t.Helper()
		ext := map[string]string{"topic": topic, "queueId": "0", "timestamp": strconv.FormatInt(ts, 10)}
		resp := tg.mustCall(t, tg.BrokerAddr, request(code.SearchOffsetByTimestamp, ext, nil, ser))
		wantCode(t, resp, code.Success, "")
		wantSer(t, resp, ser)
		return extInt64(t, resp, "offset")
	}
	forEachSer(t, func(t *testing.T, ser codec.SerializeType) {
		// Before every message: the first one.
		if got := search(t, 0, ser); got != 0 {
			t.Fatalf("timestamp 0 → %d, want 0", got)
		}
		// After every message: the last one (not maxOffset).
		if got := search(t, math.MaxInt64, ser); got != 2 {
			t.Fatalf("timestamp max → %d, want 2", got)
		}
		// An exact store timestamp finds a message stored at that time.
		for off, ts := range stored {
			got := search(t, ts, ser)
			if gotTS, ok := stored[got]; !ok || gotTS != ts {
				t.Fatalf("timestamp %d (offset %d) → offset %d stored at %d", ts, off, got, gotTS)
			}
		}
		// An unknown topic answers 0.
		ext := map[string]string{"topic": uniq("CompatNoSearch"), "queueId": "0", "timestamp": "1"}
		resp := tg.mustCall(t, tg.BrokerAddr, request(code.SearchOffsetByTimestamp, ext, nil, ser))
		if wantCode(t, resp, code.Success, ""); extInt64(t, resp, "offset") != 0 {
			t.Fatalf("unknown topic → %v", resp.ExtFields)
		}
	})
}
