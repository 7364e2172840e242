package timer

import (
	"bytes"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/message"
)

// FuzzTimerCheckpoint: the timercheck reader never panics, accepts only
// what Encode produces and re-encodes it byte for byte.
func FuzzTimerCheckpoint(f *testing.F) {
	f.Add(Checkpoint{}.Encode())
	f.Add(emptyCheckpoint().Encode())
	f.Add(Checkpoint{IngestOffset: 10, MinPending: 3, SettledAt: 1_700_000_000_000, SettledQo: 4}.Encode())
	f.Add([]byte{})
	f.Add(bytes.Repeat([]byte{0xff}, CheckpointSize))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := DecodeCheckpoint(b)
		if err != nil {
			return
		}
		if c.MinPending < 0 || c.IngestOffset < c.MinPending {
			t.Fatalf("accepted inconsistent checkpoint %+v", c)
		}
		if !bytes.Equal(c.Encode(), b) {
			t.Fatalf("re-encode differs")
		}
	})
}

// FuzzTimerMessage: the readers of a stored timer message's properties
// (Rewrite on send, DeliverAt on ingest, convert on delivery) never panic
// on any properties string, and a rewritten message reads back.
func FuzzTimerMessage(f *testing.F) {
	f.Add("TIMER_DELAY_SEC\x0110\x02UNIQ_KEY\x01k")
	f.Add("TIMER_DELIVER_MS\x01-9223372036854775808")
	f.Add("TIMER_DELAY_MS\x019223372036854775807\x02DELAY\x013")
	f.Add("TIMER_OUT_MS\x01x\x02REAL_TOPIC\x01T\x02REAL_QID\x01-1")
	f.Add("\x01\x02\x02\x01")
	now := time.UnixMilli(1_700_000_000_000)
	f.Fuzz(func(t *testing.T, props string) {
		m := &message.MessageExt{Message: message.Message{Topic: "T"}, QueueID: 1, PropertiesString: props}
		r := Rewrite(m, now, testCfg)
		_, _ = DeliverAt(m.PropertiesString)
		out, ok := convert(m, 1, 2)
		if r == Rewritten {
			if at, ok2 := DeliverAt(m.PropertiesString); !ok2 || at < now.UnixMilli()-1000 {
				t.Fatalf("rewritten TIMER_OUT_MS unreadable or past: %q", m.PropertiesString)
			}
			if !ok || out.Topic != "T" || out.QueueID != 1 {
				t.Fatalf("rewritten message converts to %+v", out)
			}
		}
	})
}
