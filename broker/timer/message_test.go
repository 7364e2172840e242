package timer

import (
	"strconv"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/message"
)

// TestTimerRewrite: 5.x's transformTimerMessage decisions and rewrite.
func TestTimerRewrite(t *testing.T) {
	t.Parallel()
	now := time.UnixMilli(1_700_000_000_250)
	nowMs := now.UnixMilli()
	off := testCfg
	off.Enabled = false
	cases := []struct {
		name  string
		props map[string]string
		cfg   Config
		want  Result
		out   int64 // TIMER_OUT_MS when Rewritten
	}{
		{"plain", map[string]string{"a": "1"}, testCfg, NotTimer, 0},
		{"deliverMs", map[string]string{PropertyDeliverMs: strconv.FormatInt(nowMs+10_000, 10)}, testCfg, Rewritten, 1_700_000_010_000},
		{"deliverMs on the second", map[string]string{PropertyDeliverMs: "1700000010000"}, testCfg, Rewritten, 1_700_000_009_000},
		{"delaySec", map[string]string{PropertyDelaySec: "3"}, testCfg, Rewritten, 1_700_000_003_000},
		{"delayMs", map[string]string{PropertyDelayMs: "1500"}, testCfg, Rewritten, 1_700_000_001_000},
		{"delaySec wins over deliverMs", map[string]string{PropertyDelaySec: "2", PropertyDeliverMs: "1"}, testCfg, Rewritten, 1_700_000_002_000},
		{"past deliverMs stored as is", map[string]string{PropertyDeliverMs: strconv.FormatInt(nowMs-5000, 10)}, testCfg, NotTimer, 0},
		{"past with del key", map[string]string{PropertyDeliverMs: "1", PropertyDelUniqKey: "k"}, testCfg, Illegal, 0},
		{"malformed", map[string]string{PropertyDeliverMs: "soon"}, testCfg, Illegal, 0},
		{"malformed sec", map[string]string{PropertyDelaySec: "1.5"}, testCfg, Illegal, 0},
		{"too far", map[string]string{PropertyDelaySec: strconv.Itoa(3*24*3600 + 1)}, testCfg, Illegal, 0},
		{"max delay", map[string]string{PropertyDelaySec: strconv.Itoa(3 * 24 * 3600)}, testCfg, Rewritten, 1_700_259_200_000},
		{"not enabled", map[string]string{PropertyDelaySec: "3"}, off, NotEnabled, 0},
		{"delay level wins", map[string]string{PropertyDelaySec: "3", message.PropertyDelayTimeLevel: "2"}, testCfg, NotTimer, 0},
		{"already rolled", map[string]string{PropertyDelaySec: "3", PropertyOutMs: "5"}, testCfg, NotTimer, 0},
		{"delay level wins over a delivered timer message", map[string]string{PropertyDelaySec: "3", PropertyOutMs: "5",
			message.PropertyDelayTimeLevel: "2"}, testCfg, NotTimer, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := &message.MessageExt{Message: message.Message{Topic: "T"}, QueueID: 3,
				PropertiesString: message.MarshalProperties(c.props)}
			if got := Rewrite(m, now, c.cfg); got != c.want {
				t.Fatalf("Rewrite = %v, want %v", got, c.want)
			}
			p := message.UnmarshalProperties(m.PropertiesString)
			switch c.want {
			case Rewritten:
				if m.Topic != Topic || m.QueueID != 0 || p[message.PropertyRealTopic] != "T" ||
					p[message.PropertyRealQueueID] != "3" || p[PropertyOutMs] != strconv.FormatInt(c.out, 10) {
					t.Errorf("rewritten to %s/%d props %v, want TIMER_OUT_MS %d", m.Topic, m.QueueID, p, c.out)
				}
			default:
				if m.Topic != "T" || m.QueueID != 3 {
					t.Errorf("moved to %s/%d", m.Topic, m.QueueID)
				}
			}
			if p[message.PropertyDelayTimeLevel] != "" && (IsTimer(m.PropertiesString) || p[message.PropertyDelayTimeLevel] != "2") {
				t.Errorf("delay-level message keeps timer properties: %v", p)
			}
		})
	}
}
