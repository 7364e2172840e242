package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
)

// node5ACLYml: nodeUser may send to and consume from every topic.
const node5ACLYml = `accounts:
  - accessKey: nodeUser
    secretKey: nodeSecret1
    defaultTopicPerm: PUB|SUB
    defaultGroupPerm: SUB
`

// TestNode5ACLSessionCredentials: the Node.js SDK given sessionCredentials
// produces and consumes through the gRPC front end of an aclEnable=true
// broker; with a wrong secret its startup is refused.
func TestNode5ACLSessionCredentials(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	file := filepath.Join(home, "conf", "plain_acl.yml")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(node5ACLYml), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newNode5Env(t, func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) {
		c.ACLEnable, c.RocketmqHome = true, home
	})
	args := func(secret string) map[string]any {
		return map[string]any{"endpoints": e.endpoint, "topic": e.topic, "group": uniqueName("GNodeAcl"), "count": 3,
			"accessKey": "nodeUser", "accessSecret": secret, "timeoutMs": node5Timeout(50 * time.Second).Milliseconds()}
	}
	t.Run("signed", func(t *testing.T) {
		t.Parallel()
		evs := startNode(t, "acl_client.js", args("nodeSecret1")).wait(node5Timeout(55 * time.Second))
		if n := len(node5Filter(evs, "sent")); n != 3 {
			t.Fatalf("%d sends, want 3: %+v", n, evs)
		}
		bodies := map[string]bool{}
		for _, a := range node5Filter(evs, "acked") {
			bodies[a.Body] = true
		}
		for _, want := range []string{"acl-0", "acl-1", "acl-2"} {
			if !bodies[want] {
				t.Errorf("%s not received and acked: %+v", want, evs)
			}
		}
	})
	t.Run("wrong secret", func(t *testing.T) {
		t.Parallel()
		ev := startNode(t, "acl_client.js", args("notTheSecret")).waitError(node5Timeout(55 * time.Second))
		if !strings.Contains(ev.Error+ev.Cause, "PERMISSION_DENIED") {
			t.Errorf("startup error %q (cause %q), want gRPC PERMISSION_DENIED", ev.Error, ev.Cause)
		}
	})
}
