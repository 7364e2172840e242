package broker_test

import (
	"errors"
	"sort"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest/observer"

	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// rbEncodeExt / rbDecodeExt carry extFields in a fuzz string as
// "k=v\nk=v"; a line without '=' is a key with an empty value.
func rbEncodeExt(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + "=" + m[k] + "\n")
	}
	return b.String()
}

func rbDecodeExt(s string) map[string]string {
	if s == "" {
		return nil
	}
	m := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		k, v, _ := strings.Cut(line, "=")
		if k != "" {
			m[k] = v
		}
	}
	return m
}

// Fuzz flags: serialization and oneway.
const (
	rbFuzzRocketMQ = 1 << iota
	rbFuzzOneway
)

// rbFuzzMayHold adds to rbMayHold the pulls: with FLAG_SUSPEND in sysFlag
// Java holds them up to the client's suspendTimeoutMillis.
func rbFuzzMayHold(req *codec.RemotingCommand) bool {
	return req.Code == code.PullMessage || req.Code == code.LitePullMessage || rbMayHold(req.Code, req.ExtFields)
}

// rbFuzzOne sends one fuzzed request and checks the invariants: an
// answer with an Apache response code (unless oneway or legitimately
// held), no recovered panic, and the broker still answering a ping.
func rbFuzzOne(t *testing.T, c *remoting.Client, addr string, logs *observer.ObservedLogs, req *codec.RemotingCommand, oneway bool) {
	switch {
	case oneway:
		req.MarkOneway()
		if err := c.InvokeOneway(t.Context(), addr, req); err != nil {
			t.Fatalf("oneway: %v", err)
		}
	case rbFuzzMayHold(req):
		resp, err := rbCall(c, addr, req, 300*time.Millisecond)
		if err == nil {
			if cerr := rbCheck(rbProbe{code: req.Code}, resp); cerr != nil {
				t.Fatal(cerr)
			}
		} else if !errors.Is(err, remoting.ErrTimeout) {
			t.Fatalf("held request: %v", err)
		}
	default:
		resp, err := rbCall(c, addr, req, 5*time.Second)
		if err != nil {
			t.Fatalf("code %s: %v", code.RequestName(req.Code), err)
		}
		if cerr := rbCheck(rbProbe{code: req.Code}, resp); cerr != nil {
			t.Fatalf("code %s: %v", code.RequestName(req.Code), cerr)
		}
	}
	resp, err := rbCall(c, addr, codec.NewRequest(9999, nil, nil), 5*time.Second)
	if err != nil || resp.Code != code.RequestCodeNotSupported {
		t.Fatalf("server not answering after code %s: %v %+v", code.RequestName(req.Code), err, resp)
	}
	for _, e := range logs.TakeAll() {
		if _, ok := e.ContextMap()["panic"]; ok {
			t.Fatalf("recovered panic on code %s: %s %v", code.RequestName(req.Code), e.Message, e.ContextMap())
		}
	}
}

// FuzzBrokerRequest sends arbitrary (code, extFields, body) requests to an
// in-process broker over a real connection.
func FuzzBrokerRequest(f *testing.F) {
	lg, logs := rbLogger(f, false)
	b := rbStartBroker(f, lg)
	addr := b.Addr().String()
	c := rbClient(f)
	bodies := rbBodies()
	for _, cd := range rbKnownCodes() {
		f.Add(int16(cd), rbEncodeExt(rbBaseline(cd)), []byte(nil), uint8(0))
		f.Add(int16(cd), rbEncodeExt(rbBaseline(cd)), bodies["truncated"], uint8(rbFuzzRocketMQ))
	}
	f.Add(int16(code.SendMessage), rbEncodeExt(rbSendExt("RbT", 0)), []byte("hello"), uint8(0))
	f.Add(int16(code.PullMessage), rbEncodeExt(rbPullExt("RbT", 0, 0, 32)), []byte(nil), uint8(rbFuzzRocketMQ))
	f.Fuzz(func(t *testing.T, cd int16, ext string, body []byte, flags uint8) {
		req := codec.NewRequest(int32(cd), rbDecodeExt(ext), body)
		if flags&rbFuzzRocketMQ != 0 {
			req.SerializeType = codec.RocketMQ
		}
		rbFuzzOne(t, c, addr, logs, req, flags&rbFuzzOneway != 0)
	})
}
