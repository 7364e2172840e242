package broker_test

import (
	"testing"

	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// TestBrokerRobustPopCodes sends the robustness sweep's hostile requests
// (missing keys, bad numbers, garbage bodies, both serializations) for the
// 5.x POP codes, which the every-code sweep (codes < 1100) does not reach:
// every one is answered, nothing panics, and the broker still serves.
func TestBrokerRobustPopCodes(t *testing.T) {
	lg, logs := rbLogger(t, false)
	b := rbStartBroker(t, lg)
	addr := b.Addr().String()
	data := &rbData{t: t, c: rbClient(t), addr: addr}
	data.send("before-0")
	data.verify()
	var probes []rbProbe
	bodies := rbBodies()
	for _, c := range []int32{code.PopMessage, code.AckMessage, code.ChangeMessageInvisibletime} {
		for _, p := range rbProbes(c, bodies) {
			// Codes above 32767 do not fit a ROCKETMQ header; a missing
			// bornTime is filled with the broker's clock, as Java does,
			// not refused.
			if p.ser != codec.JSON || p.missing == "bornTime" {
				continue
			}
			// A pop with a hostile pollTime may be held for it.
			p.mayHold = p.mayHold || c == code.PopMessage
			probes = append(probes, p)
		}
	}
	t.Logf("%d probes", len(probes))
	stop := rbMonitor(t, addr, func() *codec.RemotingCommand { return codec.NewRequest(9999, nil, nil) }, code.RequestCodeNotSupported)
	rbSweep(t, addr, probes, 16)
	stop()
	data.send("after-0")
	data.verify()
	if p := rbPanics(logs); len(p) > 0 {
		t.Fatalf("%d recovered panics, first: %s", len(p), p[0])
	}
}
