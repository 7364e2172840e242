package integration

import (
	"strings"
	"testing"
	"time"
)

// TestNode5StatusCodesSeenBySDK: errors reach the SDK with 5.x's
// apache.rocketmq.v2 codes, which decide the SDK's exception types: a
// topic without a route fails the producer's startup with TOPIC_NOT_FOUND
// (40402, NotFoundException), and a receive with an invisible duration
// under 5.x's 10 s minimum fails with ILLEGAL_INVISIBLE_TIME (40011,
// BadRequestException).
func TestNode5StatusCodesSeenBySDK(t *testing.T) {
	t.Parallel()
	e := newNode5Env(t)
	t.Run("unknown topic", func(t *testing.T) {
		t.Parallel()
		ev := startNode(t, "producer.js", map[string]any{
			"endpoints": e.endpoint, "topic": uniqueName("NoSuchTopic"), "mode": "normal", "count": 1,
			"timeoutMs": node5Timeout(40 * time.Second).Milliseconds(),
		}).waitError(node5Timeout(45 * time.Second))
		if !strings.Contains(ev.Cause, "NotFoundException") || !strings.Contains(ev.Cause, "response-code=40402") {
			t.Errorf("startup error %q (cause %q), want NotFoundException with code 40402", ev.Error, ev.Cause)
		}
	})
	t.Run("invisible duration too short", func(t *testing.T) {
		t.Parallel()
		args := e.simpleArgs(uniqueName("nbi"), 1)
		args["invisibleMs"] = 5000
		ev := startNode(t, "simple_consumer.js", args).waitError(node5Timeout(45 * time.Second))
		if !strings.Contains(ev.Error, "BadRequestException") || !strings.Contains(ev.Error, "response-code=40011") {
			t.Errorf("receive error %q, want BadRequestException with code 40011", ev.Error)
		}
	})
}
