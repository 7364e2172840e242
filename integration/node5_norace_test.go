//go:build !race

package integration

import "testing"

// TestNoRaceNode5DelayWithinOneSecond: a DELAY message sent by the Node
// SDK reaches its SimpleConsumer within 1 s after its delivery timestamp
// (and, as TestNode5ProducerDelayNotBeforeItsTime checks, not more than
// 1 s before it).
func TestNoRaceNode5DelayWithinOneSecond(t *testing.T) {
	t.Parallel()
	e := newNode5Env(t)
	evs, sent := e.runDelay(t)
	got := byID(evs)
	for _, s := range sent {
		r := got[s.MessageID]
		if len(r) == 0 {
			t.Fatalf("%s not received", s.Body)
		}
		if late := r[0].MS - s.DeliverAt; late > 1000 || late < -1000 {
			t.Errorf("%s received %d ms after its delivery time, want within 1 s", s.Body, late)
		}
	}
}
