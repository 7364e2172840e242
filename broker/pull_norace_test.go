//go:build !race

package broker_test

import (
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

func TestNoRaceBrokerPullLongPollWakesOnArrival(t *testing.T) {
	e := newConsumeEnv(t)
	e.send("LongT", 2, map[string]string{"TAGS": "TagA"}, "first")
	e.waitDispatched("LongT", 2, 1)
	// One waiter with a non-matching tag, one matching.
	other := pullReq("g2", "LongT", 2, 1, 0x2, "TagZ", "TAG")
	otherCh := e.pullAsync(other)
	req := pullReq("g", "LongT", 2, 1, 0x2, "TagA", "TAG")
	req.SerializeType = codec.RocketMQ
	ch := e.pullAsync(req)
	time.Sleep(300 * time.Millisecond) // let both requests park (suspend 15 s)
	select {
	case resp := <-ch:
		t.Fatalf("answered before any message arrived: %d %q", resp.Code, resp.Remark)
	default:
	}
	start := time.Now()
	e.send("LongT", 2, map[string]string{"TAGS": "TagA"}, "second")
	resp := waitAnswer(t, ch, 5*time.Second)
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("woken after %v, want well under the 5 s check interval", took)
	}
	e.expect(resp, code.Success, "FOUND")
	if got := bodies(decodeBody(t, resp.Body)); got != "second" {
		t.Fatalf("woken pull returned %q", got)
	}
	if resp.SerializeType != codec.JSON {
		t.Fatalf("woken answer in %v, want the broker's JSON", resp.SerializeType)
	}
	select {
	case resp := <-otherCh:
		t.Fatalf("TagZ waiter woken by a TagA message: %d %q", resp.Code, resp.Remark)
	case <-time.After(200 * time.Millisecond):
	}
}
