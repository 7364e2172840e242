package namesrv_test

import (
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// nsEncodeExt / nsDecodeExt carry extFields in a fuzz string as
// "k=v\nk=v"; a line without '=' is a key with an empty value.
func nsEncodeExt(m map[string]string) string {
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

func nsDecodeExt(s string) map[string]string {
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
	nsFuzzRocketMQ = 1 << iota
	nsFuzzOneway
)

// FuzzNamesrvRequest sends arbitrary (code, extFields, body) requests to an
// in-process name server over a real connection. Invariants: every
// non-oneway request is answered with an Apache response code, no panic is
// recovered by the transport, and the server keeps answering a route query.
func FuzzNamesrvRequest(f *testing.F) {
	lg, logs := nsLogger(f, false)
	ns := nsStart(f, lg)
	addr := ns.Addr().String()
	c := nsClient(f)
	bodies := nsBodies()
	for _, cd := range nsKnownCodes() {
		f.Add(int16(cd), nsEncodeExt(nsBaseline(cd)), []byte(nil), uint8(0))
		f.Add(int16(cd), nsEncodeExt(nsBaseline(cd)), bodies["fastjson"], uint8(nsFuzzRocketMQ))
	}
	reg := nsRegisterReq(f, "broker-f", "127.0.0.1:30911", "FuzzT")
	f.Add(int16(code.RegisterBroker), nsEncodeExt(reg.ExtFields), reg.Body, uint8(0))
	f.Add(int16(code.RegisterBroker), nsEncodeExt(nsWith(reg.ExtFields, "compressed", "true")), reg.Body, uint8(0))
	f.Fuzz(func(t *testing.T, cd int16, ext string, body []byte, flags uint8) {
		req := codec.NewRequest(int32(cd), nsDecodeExt(ext), body)
		if flags&nsFuzzRocketMQ != 0 {
			req.SerializeType = codec.RocketMQ
		}
		if flags&nsFuzzOneway != 0 {
			req.MarkOneway()
			if err := c.InvokeOneway(t.Context(), addr, req); err != nil {
				t.Fatalf("oneway: %v", err)
			}
		} else {
			resp, err := nsCall(c, addr, req, 5*time.Second)
			if err != nil {
				t.Fatalf("code %s: %v", code.RequestName(req.Code), err)
			}
			if cerr := nsCheck(nsProbe{code: req.Code}, resp); cerr != nil {
				t.Fatalf("code %s: %v", code.RequestName(req.Code), cerr)
			}
		}
		ping := codec.NewRequest(code.GetRouteinfoByTopic, map[string]string{"topic": "NoSuchFuzzTopic"}, nil)
		resp, err := nsCall(c, addr, ping, 5*time.Second)
		if err != nil || (resp.Code != code.TopicNotExist && resp.Code != code.Success) {
			t.Fatalf("server not answering after code %s: %v %+v", code.RequestName(req.Code), err, resp)
		}
		for _, e := range logs.TakeAll() {
			if _, ok := e.ContextMap()["panic"]; ok {
				t.Fatalf("recovered panic on code %s: %s %v", code.RequestName(req.Code), e.Message, e.ContextMap())
			}
		}
	})
}
