package broker_test

import (
	"context"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// TestBrokerPullAllocsPerAnswer bounds the heap allocations the broker
// makes per PULL_MESSAGE that finds messages, end to end (read, decode,
// subscription, store read, answer encode, write), measured on the whole
// process with a raw sender that allocates nothing itself; and checks the
// last answer is a found pull with the expected header.
func TestBrokerPullAllocsPerAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a broker")
	}
	br := testutil.StartBroker(t, "")
	addr := br.Addr().String()
	c := remoting.NewClient(remoting.NewNettyClientConfig(), nil)
	t.Cleanup(func() { _ = c.Shutdown(context.Background()) })
	const topic, msgs = "PullAllocTopic", 4
	for i := range msgs {
		h := &header.SendMessageRequestHeader{ProducerGroup: "pg", Topic: topic, DefaultTopic: "TBW102",
			DefaultTopicQueueNums: 1, QueueID: 0, BornTimestamp: time.Now().UnixMilli(),
			Properties: message.MarshalProperties(map[string]string{"TAGS": "T"})}
		resp, err := c.InvokeSync(context.Background(), addr, codec.NewRequest(code.SendMessage, h.ToExtFields(), make([]byte, 64)))
		if err != nil || resp.Code != code.Success {
			t.Fatalf("send %d: %v %v", i, err, resp)
		}
	}
	testutil.Eventually(t, 10*time.Second, func() error {
		if br.Store().MaxOffsetInQueue(topic, 0) != msgs {
			return errNoAnswer
		}
		return nil
	})
	for _, st := range []codec.SerializeType{codec.JSON, codec.RocketMQ} {
		t.Run(st.String(), func(t *testing.T) {
			const perRun, inFlight = 256, 16
			req := pullReq("PullAllocGroup", topic, 0, 1, 0, "*", "TAG")
			req.SerializeType, req.Opaque = st, 1
			frame, err := codec.Encode(req)
			if err != nil {
				t.Fatal(err)
			}
			s := newRawSender(t, addr, frame, inFlight)
			if _, err := s.roundTrips(perRun, inFlight); err != nil { // creates the group, warms up
				t.Fatal(err)
			}
			allocs := testing.AllocsPerRun(4, func() {
				if err == nil {
					_, err = s.roundTrips(perRun, inFlight)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			// Every pull of the batch asks the same; any answer will do.
			resp, err := codec.Decode(s.ans[0][:s.lens[0]])
			if err != nil {
				t.Fatal(err)
			}
			var rh header.PullMessageResponseHeader
			if err := rh.FromExtFields(resp.ExtFields); err != nil || resp.Code != code.Success ||
				rh.NextBeginOffset != msgs || rh.MinOffset != 0 || rh.MaxOffset != msgs || rh.SuggestWhichBrokerID != 0 {
				t.Fatalf("answer code %d %q header %+v (%v)", resp.Code, resp.Remark, rh, err)
			}
			if ms, err := message.DecodeRecords(resp.Body, true); err != nil || len(ms) != msgs-1 {
				t.Fatalf("answer has %d messages, want %d (%v)", len(ms), msgs-1, err)
			}
			per := allocs / perRun
			t.Logf("%s: %.1f allocations per pull", st, per)
			if limit := pullAllocBudget[st] + raceAllocSlack; per > limit {
				t.Errorf("%.1f allocations per pull, want at most %.0f", per, limit)
			}
		})
	}
}

// pullAllocBudget is the per-pull allocation ceiling of
// TestBrokerPullAllocsPerAnswer, with a little slack for background work.
var pullAllocBudget = map[codec.SerializeType]float64{codec.JSON: 14, codec.RocketMQ: 14}
