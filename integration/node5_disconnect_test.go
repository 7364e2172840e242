package integration

import (
	"fmt"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/testutil"
)

// TestNode5ConsumerVanishingMidPollSparesOthers: a Node consumer killed
// while its receive is long-polling at the broker must not disturb another
// consumer's long poll on the same broker: that one still gets the next
// message, once, and its receive does not fail (5.x's proxy lets an
// abandoned broker call finish instead of dropping the broker connection
// every client shares).
func TestNode5ConsumerVanishingMidPollSparesOthers(t *testing.T) {
	t.Parallel()
	e := newNode5Env(t)
	held := e.b.PopHeld()
	// No silent retry: a receive that fails fails the script.
	args := e.simpleArgs(uniqueName("nva"), 1)
	args["maxRetryAttempts"] = 1
	a := startNode(t, "simple_consumer.js", args)
	b := startNode(t, "simple_consumer.js", e.simpleArgs(uniqueName("nvb"), 1))
	testutil.Eventually(t, node5Timeout(30*time.Second), func() error {
		if n := e.b.PopHeld(); n < held+2 {
			return fmt.Errorf("%d long polls held at the broker, want both consumers'", n)
		}
		return nil
	})
	if err := b.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-b.done
	res := e.send("v", 1, "", nil)
	got := byID(a.wait(node5Timeout(45 * time.Second)))
	if r := got[res[0].MsgID]; len(r) != 1 || r[0].Body != "v-0" {
		t.Fatalf("surviving consumer got %+v for %s", got, res[0].MsgID)
	}
}
