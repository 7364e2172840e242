package broker_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
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

// rbFuzzEnv is the broker under fuzz and its clients: held requests go
// on their own client without waiting (a suspended pull may be held for
// its fuzzed suspendTimeoutMillis); a bad answer to one is reported by
// the next exec.
type rbFuzzEnv struct {
	c, hold *remoting.Client
	addr    string
	logs    *observer.ObservedLogs
	heldErr atomic.Pointer[error]
}

func (e *rbFuzzEnv) sendHeld(req *codec.RemotingCommand) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	err := e.hold.InvokeAsync(ctx, e.addr, req, func(resp *codec.RemotingCommand, err error) {
		defer cancel()
		if err == nil {
			err = rbCheck(rbProbe{code: req.Code}, resp)
		} else if errors.Is(err, remoting.ErrTimeout) || errors.Is(err, context.DeadlineExceeded) {
			err = nil
		}
		if err != nil {
			err = fmt.Errorf("held code %s: %w", code.RequestName(req.Code), err)
			e.heldErr.CompareAndSwap(nil, &err)
		}
	})
	if err != nil {
		cancel()
	}
	return err
}

// one sends one fuzzed request and checks the invariants: an answer with
// an Apache response code (unless oneway or legitimately held), no
// recovered panic, and the broker still answering a ping.
func (e *rbFuzzEnv) one(t *testing.T, req *codec.RemotingCommand, oneway bool) {
	switch {
	case oneway:
		req.MarkOneway()
		if err := e.c.InvokeOneway(t.Context(), e.addr, req); err != nil {
			t.Fatalf("oneway: %v", err)
		}
	case rbFuzzMayHold(req):
		if err := e.sendHeld(req); err != nil {
			t.Fatalf("held request: %v", err)
		}
	default:
		resp, err := rbCall(e.c, e.addr, req, 5*time.Second)
		if err != nil {
			t.Fatalf("code %s: %v", code.RequestName(req.Code), err)
		}
		if cerr := rbCheck(rbProbe{code: req.Code}, resp); cerr != nil {
			t.Fatalf("code %s: %v", code.RequestName(req.Code), cerr)
		}
	}
	resp, err := rbCall(e.c, e.addr, codec.NewRequest(9999, nil, nil), 5*time.Second)
	if err != nil || resp.Code != code.RequestCodeNotSupported {
		t.Fatalf("server not answering after code %s: %v %+v", code.RequestName(req.Code), err, resp)
	}
	if p := e.heldErr.Load(); p != nil {
		t.Fatal(*p)
	}
	for _, en := range e.logs.TakeAll() {
		if _, ok := en.ContextMap()["panic"]; ok {
			t.Fatalf("recovered panic on code %s: %s %v", code.RequestName(req.Code), en.Message, en.ContextMap())
		}
	}
}

// FuzzBrokerRequest sends arbitrary (code, extFields, body) requests to an
// in-process broker over a real connection.
func FuzzBrokerRequest(f *testing.F) {
	lg, logs := rbLogger(f, false)
	b := rbStartBroker(f, lg)
	e := &rbFuzzEnv{c: rbClient(f), hold: rbClient(f), addr: b.Addr().String(), logs: logs}
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
		e.one(t, req, flags&rbFuzzOneway != 0)
	})
}
