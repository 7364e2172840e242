package broker_test

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting/code"
)

// TestBrokerPullHeldSQL92WakesOnlyOnMatch: a long-poll pull with an SQL92
// filter makes the store hand the arriving messages' properties to the
// hold service, so it stays held through a message its filter rejects
// (which a TAG pull held beside it takes) and answers FOUND with the
// matching one, as Java's PullRequestHoldService does; once it is
// answered the properties are no longer built.
func TestBrokerPullHeldSQL92WakesOnlyOnMatch(t *testing.T) {
	e := newConsumeEnv(t, func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) { c.EnablePropertyFilter = true })
	const topic = "HeldSqlT"
	e.send(topic, 0, map[string]string{"n": "0"}, "v0")
	e.waitDispatched(topic, 0, 1)
	wants := func(v bool) error {
		if broker.ArrivingWantsProperties(e.b) != v {
			return errors.New("arriving properties wanted: " + strconv.FormatBool(!v))
		}
		return nil
	}

	tagHeld := e.pullAsync(pullReq("gtag", topic, 0, 1, 0x2, "*", "TAG"))
	sqlHeld := e.pullAsync(pullReq("gsql", topic, 0, 1, 0x2, "n = 1", "SQL92"))
	testutil.Eventually(t, 5*time.Second, func() error { return wants(true) })

	e.send(topic, 0, map[string]string{"n": "2"}, "v2") // rejected by the SQL92 filter
	resp := waitAnswer(t, tagHeld, 10*time.Second)      // the TAG pull takes it
	e.expect(resp, code.Success, "FOUND")
	if got := bodies(decodeBody(t, resp.Body)); got != "v2" {
		t.Fatalf("tag pull got %q", got)
	}
	// The dispatcher told the hold service about v2 before moving on, so
	// once it has caught up the SQL92 pull was kept or woken for good.
	testutil.Eventually(t, 5*time.Second, func() error {
		if e.b.Store().DispatchBehindBytes() > 0 {
			return errors.New("dispatch behind")
		}
		return nil
	})
	if err := wants(true); err != nil {
		t.Fatalf("SQL92 pull no longer held after a message its filter rejects: %v", err)
	}
	select {
	case resp := <-sqlHeld:
		t.Fatalf("SQL92 pull answered %s %q for a message its filter rejects", code.ResponseName(resp.Code), resp.Remark)
	default:
	}

	e.send(topic, 0, map[string]string{"n": "1"}, "v1")
	resp = waitAnswer(t, sqlHeld, 10*time.Second)
	e.expect(resp, code.Success, "FOUND")
	if got := bodies(decodeBody(t, resp.Body)); got != "v1" {
		t.Fatalf("SQL92 pull got %q, want v1", got)
	}
	testutil.Eventually(t, 5*time.Second, func() error { return wants(false) })
}
