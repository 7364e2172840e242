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
	for _, c := range []int32{code.PopMessage, code.AckMessage, code.ChangeMessageInvisibletime, code.BatchAckMessage,
		code.PeekMessage, code.Notification, code.PollingInfo} {
		for _, p := range rbProbes(c, bodies) {
			// Codes above 32767 do not fit a ROCKETMQ header; a missing
			// bornTime is filled with the broker's clock, as Java does,
			// not refused.
			if p.ser != codec.JSON || p.missing == "bornTime" {
				continue
			}
			// A pop with a hostile pollTime may be held for it.
			p.mayHold = p.mayHold || c == code.PopMessage || c == code.Notification
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

// TestBrokerRobustPopValues: extreme numbers on an existing topic reach
// the store and the revive log without a panic, and the broker keeps
// serving.
func TestBrokerRobustPopValues(t *testing.T) {
	lg, logs := rbLogger(t, false)
	b := rbStartBroker(t, lg)
	addr := b.Addr().String()
	data := &rbData{t: t, c: rbClient(t), addr: addr}
	data.send("before-0")
	data.verify()
	base := func(c int32) map[string]string {
		m := rbBaseline(c)
		m["topic"], m["consumerGroup"] = rbDataTopic, rbDataGroup
		m["bornTime"], m["pollTime"] = "0", "0"
		return m
	}
	var probes []rbProbe
	for _, c := range []int32{code.PopMessage, code.PeekMessage, code.Notification, code.AckMessage, code.ChangeMessageInvisibletime} {
		for _, k := range []string{"maxMsgNums", "invisibleTime", "queueId", "initMode", "offset", "pollTime"} {
			if _, ok := base(c)[k]; !ok {
				continue
			}
			for _, v := range []string{"0", "-1", "-2147483648", "2147483647", "-9223372036854775808", "9223372036854775807"} {
				ext := base(c)
				ext[k] = v
				if k == "pollTime" {
					ext["bornTime"] = "1"
				}
				probes = append(probes, rbProbe{name: code.RequestName(c) + "/" + k + "=" + v, code: c, ext: ext,
					ser: codec.JSON, mayHold: true})
			}
		}
	}
	for _, h := range []string{"0 0 0 0 0 b 0 0", "-1 -1 -1 999 0 b -1 -1", "0 0 0 2147483647 1 b 0 0", "9223372036854775807 1 1 1 2 b 1 1"} {
		for _, c := range []int32{code.AckMessage, code.ChangeMessageInvisibletime} {
			ext := base(c)
			ext["extraInfo"], ext["offset"] = h, "0"
			probes = append(probes, rbProbe{name: code.RequestName(c) + "/extraInfo=" + h, code: c, ext: ext, ser: codec.JSON, mayHold: true})
		}
	}
	rbSweep(t, addr, probes, 8)
	data.send("after-0")
	data.verify()
	if p := rbPanics(logs); len(p) > 0 {
		t.Fatalf("%d recovered panics, first: %s", len(p), p[0])
	}
}
