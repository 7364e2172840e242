package namesrv_test

// Hostile-input hardening of the name server: every request code with
// missing, malformed and out-of-range extFields and garbage bodies in both
// serializations, Apache 4.9.8's answers for the main checks, and
// frame-level abuse on raw connections. Invariants: an answer arrives in
// time with an Apache response code (and a remark where Apache gives one),
// no panic is recovered by the transport, other connections keep being
// served, and the route table and KV config are intact afterwards.

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"net"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"
	"go.uber.org/zap/zaptest/observer"

	"github.com/rocketmq-go/rmq/namesrv"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

const (
	nsProbeTopic = "RobustProbeTopic" // the topic hostile requests name (may be mangled)
	nsProbeGroup = "RobustProbeGroup"
	nsDataTopic  = "RobustDataTopic" // only touched by well-formed requests; checked at the end
	nsDataBroker = "robust-data-broker"
	nsBound      = 10 * time.Second // answer bound (a suspended pull is held ≤ 5 s)
)

// nsLogger tees a zaptest logger (errors only, to keep output readable)
// with an observer that records every entry carrying a "panic" field: the
// transport and the timed executors log recovered processor panics so.
func nsLogger(t testing.TB, vensose bool) (*zap.Logger, *observer.ObservedLogs) {
	obs, logs := observer.New(zap.WarnLevel)
	base := zap.NewNop()
	if vensose {
		base = zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel))
	}
	return base.WithOptions(zap.WrapCore(func(c zapcore.Core) zapcore.Core { return zapcore.NewTee(c, obs) })), logs
}

// nsPanics lists recovered panics seen so far.
func nsPanics(logs *observer.ObservedLogs) []string {
	var out []string
	for _, e := range logs.FilterFieldKey("panic").All() {
		out = append(out, fmt.Sprintf("%s %v", e.Message, e.ContextMap()))
	}
	return out
}

func nsClient(t testing.TB) *remoting.Client {
	c := remoting.NewClient(remoting.NewNettyClientConfig(), zap.NewNop())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = c.Shutdown(ctx)
	})
	return c
}

func nsCall(c *remoting.Client, addr string, req *codec.RemotingCommand, d time.Duration) (*codec.RemotingCommand, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return c.InvokeSync(ctx, addr, req)
}

// nsSane gives plausible values to the header keys the probes touch, so
// that a request gets past the first check and mutations hit deeper code.
var nsSane = map[string]string{
	"topic": nsProbeTopic, "consumerGroup": nsProbeGroup, "producerGroup": nsProbeGroup, "group": nsProbeGroup,
	"defaultTopic": "TBW102", "defaultTopicQueueNums": "4", "queueId": "0", "maxMsgNums": "32",
	"subscription": "*", "clusterName": "DefaultCluster", "brokerName": "broker-a", "brokerAddr": "127.0.0.1:10911", "haServerAddr": "127.0.0.1:10912", "value": "v", "readQueueNums": "4",
	"writeQueueNums": "4", "perm": "6", "topicFilterType": "SINGLE_TAG", "clientId": "127.0.0.1@robust",
	"srcGroup": nsProbeGroup, "destGroup": nsProbeGroup + "2", "key": "k", "namespace": "ns",
	"bornTimestamp": "1700000000000", "maxReconsumeTimes": "16", "originTopic": nsProbeTopic,
	"a": nsProbeGroup, "b": nsProbeTopic, "c": "TBW102", "d": "4", "e": "0", "g": "1700000000000", "j": "0",
}

// nsBaseline is the extFields of a plausible request with code c: every
// field the header class declares, zero or given a sane value.
func nsBaseline(c int32) map[string]string {
	m := map[string]string{}
	if h := header.NewRequestHeader(c); h != nil {
		m = h.ToExtFields()
	}
	for k := range m {
		if v, ok := nsSane[k]; ok {
			m[k] = v
		}
	}
	return m
}

// nsProbe is one hostile request.
type nsProbe struct {
	name    string
	code    int32
	ext     map[string]string
	body    []byte
	ser     codec.SerializeType
	missing string // the key left out, if any
}

// nsBadNumbers replace numeric values: non-numeric, empty, overflowing,
// negative and extreme values.
var nsBadNumbers = []string{"x", "", "99999999999999999999", "-1", "2147483647", "-9223372036854775808"}

// nsBodies are gansage bodies: random bytes, truncated JSON, deep nesting,
// a huge array, fastjson-style keys and a lone NUL.
func nsBodies() map[string][]byte {
	rnd := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 512)
	for i := range random {
		random[i] = byte(rnd.UintN(256))
	}
	huge := append([]byte{'['}, bytes.Repeat([]byte("0,"), 30_000)...)
	huge = append(huge, '0', ']')
	return map[string][]byte{
		"random":    random,
		"truncated": []byte(`{"topicConfigTable":{"t":{"topicName":"t","readQueueNums":`),
		"deep":      bytes.Repeat([]byte{'['}, 30_000),
		"deepObj":   []byte(strings.Repeat(`{"a":`, 20_000) + "1" + strings.Repeat("}", 20_000)),
		"hugeArray": huge,
		"fastjson":  []byte(`{0:"a",{"brokerName":"b","queueId":1}:{"x":[1,2,{}]},"offsetTable":{}}`),
		"nul":       {0},
		// Well-formed JSON whose members are null or of the wrong type,
		// shaped like the bodies processors decode.
		"nullHeartbeat": []byte(`{"clientID":null,"consumerDataSet":[null,{"groupName":null,"consumeFromWhere":"X",` +
			`"subscriptionDataSet":[null,{"topic":null,"subString":null,"tagsSet":null,"codeSet":[null]}]}],"producerDataSet":[null,{"groupName":null}]}`),
		"nullMQs": []byte(`{"consumerGroup":null,"clientId":null,"mqSet":[null,{"topic":null,"brokerName":null,"queueId":-1}],` +
			`"offsetTable":{"x":null},"topicConfigTable":{"t":null,"u":{"topicName":null,"readQueueNums":-5}},` +
			`"subscriptionGroupTable":{"g":null},"dataVersion":null}`),
		"nullRegister": []byte(`{"topicConfigSerializeWrapper":{"topicConfigTable":{"t":null,"u":{"topicName":null}},"dataVersion":null},` +
			`"filterServerList":null}`),
		"wrongTypes": []byte(`{"clientID":1,"consumerDataSet":{"a":1},"producerDataSet":"x","mqSet":7,"topicConfigTable":[1,2],"offsetTable":"x"}`),
	}
}

// nsKnownCodes lists every request code with a Java name, in [0, 1100).
func nsKnownCodes() []int32 {
	var out []int32
	for c := int32(0); c < 1100; c++ {
		if code.RequestName(c) != strconv.Itoa(int(c)) {
			out = append(out, c)
		}
	}
	return out
}

// nsProbes builds the hostile requests for code c.
func nsProbes(c int32, bodies map[string][]byte) []nsProbe {
	base := nsBaseline(c)
	name := code.RequestName(c)
	var ps []nsProbe
	// Both serializations where they differ (ROCKETMQ reads an empty value
	// as a Java null); values and bodies travel alike in both, so those go
	// as JSON only to keep the run short.
	add := func(n string, ext map[string]string, b []byte, missing string) {
		sers := []codec.SerializeType{codec.JSON, codec.RocketMQ}
		if strings.Contains(n, "=") || strings.HasPrefix(n, "body-") {
			sers = sers[:1]
		}
		for _, ser := range sers {
			ps = append(ps, nsProbe{name: name + "/" + n + "/" + ser.String(), code: c, ext: ext, body: b, ser: ser, missing: missing})
		}
	}
	add("noExt", nil, nil, "")
	add("baseline", base, nil, "")
	keys := make([]string, 0, len(base))
	for k := range base {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		add("missing-"+k, nsWithout(base, k), nil, k)
		if _, err := strconv.ParseInt(base[k], 10, 64); err != nil {
			continue
		}
		for _, v := range nsBadNumbers {
			add(k+"="+strconv.Quote(v), nsWith(base, k, v), nil, "")
		}
	}
	for n, b := range bodies {
		add("body-"+n, base, b, "")
	}
	return ps
}

func nsWithout(m map[string]string, k string) map[string]string {
	out := make(map[string]string, len(m))
	for kk, v := range m {
		if kk != k {
			out[kk] = v
		}
	}
	return out
}

func nsWith(m map[string]string, k, v string) map[string]string {
	out := nsWithout(m, k)
	out[k] = v
	return out
}

func (p nsProbe) request() *codec.RemotingCommand {
	req := codec.NewRequest(p.code, p.ext, p.body)
	req.SerializeType = p.ser
	return req
}

// nsRemarkRequired lists response codes Apache always sends with a remark.
var nsRemarkRequired = map[int32]bool{
	code.SystemError: true, code.RequestCodeNotSupported: true, code.TopicNotExist: true,
	code.SubscriptionGroupNotExist: true, code.NoPermission: true, code.MessageIllegal: true,
}

// nsCheck asserts what a client observes for p: an Apache response code,
// a remark where Apache always gives one, and for a missing required
// header field Java's RemotingCommandException text.
func nsCheck(p nsProbe, resp *codec.RemotingCommand) error {
	if !resp.IsResponse() {
		return fmt.Errorf("not a response: %+v", resp)
	}
	if code.ResponseName(resp.Code) == strconv.Itoa(int(resp.Code)) {
		return fmt.Errorf("non-Apache response code %d remark %q", resp.Code, resp.Remark)
	}
	if nsRemarkRequired[resp.Code] && resp.Remark == "" {
		return fmt.Errorf("code %s without remark", code.ResponseName(resp.Code))
	}
	if p.missing != "" && resp.Code != code.RequestCodeNotSupported {
		if want := nsNullFieldError(p); want != "" && (resp.Code != code.SystemError || !strings.Contains(resp.Remark, want)) {
			return fmt.Errorf("missing %s: code %s remark %q, want SYSTEM_ERROR %q",
				p.missing, code.ResponseName(resp.Code), resp.Remark, want)
		}
	}
	return nil
}

// nsNullFieldError is the RemotingCommandException text Java gives for
// p's header as the server decodes it ("the custom field <x> is null"), or
// "" when every required field is there. The ROCKETMQ serialization turns
// empty values into Java nulls, so the request goes through the codec first.
func nsNullFieldError(p nsProbe) string {
	h := header.NewRequestHeader(p.code)
	if h == nil {
		return ""
	}
	frame, err := codec.AppendFrame(nil, p.request())
	if err != nil {
		return ""
	}
	seen, err := codec.Decode(frame)
	if err != nil {
		return ""
	}
	if err := h.FromExtFields(seen.ExtFields); err != nil && strings.HasPrefix(err.Error(), "the custom field <") {
		return err.Error()
	}
	return ""
}

// nsSweep sends every probe from workers goroutines and reports failures.
func nsSweep(t *testing.T, addr string, probes []nsProbe, workers int) {
	t.Helper()
	c := nsClient(t)
	ch := make(chan nsProbe)
	var mu sync.Mutex
	var fails []string
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for p := range ch {
				resp, err := nsCall(c, addr, p.request(), nsBound)
				if err == nil {
					err = nsCheck(p, resp)
				}
				if err != nil {
					mu.Lock()
					fails = append(fails, p.name+": "+err.Error())
					mu.Unlock()
				}
			}
		})
	}
	for _, p := range probes {
		ch <- p
	}
	close(ch)
	wg.Wait()
	sort.Strings(fails)
	for i, f := range fails {
		if i == 2000 {
			t.Errorf("... and %d more", len(fails)-40)
			break
		}
		t.Error(f)
	}
}

// nsMonitor keeps a second connection busy with a cheap request while the
// sweep runs and reports the first failure.
func nsMonitor(t *testing.T, addr string, req func() *codec.RemotingCommand, want int32) (stop func()) {
	c := nsClient(t)
	done := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		defer close(errc)
		for n := 0; ; n++ {
			select {
			case <-done:
				if n == 0 {
					errc <- errors.New("monitor made no request")
				}
				return
			default:
			}
			resp, err := nsCall(c, addr, req(), nsBound)
			if err == nil && resp.Code != want {
				err = fmt.Errorf("code %s remark %q", code.ResponseName(resp.Code), resp.Remark)
			}
			if err != nil {
				errc <- err
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	return func() {
		close(done)
		if err := <-errc; err != nil {
			t.Errorf("other connection not served during the sweep: %v", err)
		}
	}
}

// ---- frame-level abuse on raw connections ----

func nsDial(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

func nsFrame(t testing.TB, req *codec.RemotingCommand) []byte {
	t.Helper()
	f, err := codec.AppendFrame(nil, req)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	return f
}

// nsReadFrame reads one whole frame from conn within d.
func nsReadFrame(conn net.Conn, d time.Duration) (*codec.RemotingCommand, error) {
	_ = conn.SetReadDeadline(time.Now().Add(d))
	var pre [4]byte
	if _, err := io.ReadFull(conn, pre[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(pre[:])
	if n > 64<<20 {
		return nil, fmt.Errorf("frame of %d bytes", n)
	}
	buf := make([]byte, 4+int(n))
	copy(buf, pre[:])
	if _, err := io.ReadFull(conn, buf[4:]); err != nil {
		return nil, err
	}
	return codec.Decode(buf)
}

// nsExpectClosed wants the server to close conn (EOF or reset) within d
// without sending anything.
func nsExpectClosed(t *testing.T, conn net.Conn, d time.Duration) {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(d))
	var b [1]byte
	n, err := conn.Read(b[:])
	var ne net.Error
	switch {
	case n > 0:
		t.Fatalf("server answered instead of closing (first byte %#x)", b[0])
	case errors.As(err, &ne) && ne.Timeout():
		t.Fatalf("connection still open after %v", d)
	case err == nil:
		t.Fatal("read returned nothing and no error")
	}
}

// nsPing sends an unsupported code on conn and wants its answer.
func nsPing(t *testing.T, conn net.Conn, opaque int32) {
	t.Helper()
	req := codec.NewRequest(9999, nil, nil)
	req.Opaque = opaque
	if _, err := conn.Write(nsFrame(t, req)); err != nil {
		t.Fatalf("ping write: %v", err)
	}
	resp, err := nsReadFrame(conn, nsBound)
	if err != nil || resp.Opaque != opaque || resp.Code != code.RequestCodeNotSupported {
		t.Fatalf("ping %d: %v %+v", opaque, err, resp)
	}
}

// nsBadFrames are byte streams whose first frame cannot be decoded: Java
// closes the channel (NettyDecoder) and so must we.
func nsBadFrames(t testing.TB) map[string][]byte {
	valid := nsFrame(t, codec.NewRequest(9999, map[string]string{"k": "v"}, []byte("body")))
	be := binary.BigEndian
	mk := func(total, hdr uint32, rest []byte) []byte {
		b := be.AppendUint32(nil, total)
		b = be.AppendUint32(b, hdr)
		return append(b, rest...)
	}
	badType := append([]byte(nil), valid...)
	badType[4] = 7 // serialize type 7 does not exist
	return map[string][]byte{
		"oversize length":          append(be.AppendUint32(nil, 0x7fffffff), bytes.Repeat([]byte{1}, 64)...),
		"length over max":          append(be.AppendUint32(nil, uint32(codec.DefaultMaxFrameLength)), bytes.Repeat([]byte{1}, 64)...),
		"zero length":              append(be.AppendUint32(nil, 0), bytes.Repeat([]byte{0}, 8)...),
		"length shorter than hdr":  mk(2, 0, []byte{0, 0}),
		"header longer than frame": mk(12, 1000, bytes.Repeat([]byte("{"), 8)),
		"header length 2^24-1":     mk(12, 0x00FFFFFF, bytes.Repeat([]byte("{"), 8)),
		"unknown serialize type":   badType,
		"gansage json header":      mk(4+9, 9, []byte("not json!")),
		"truncated json header":    mk(4+9, 9, []byte(`{"code":1`)),
		"short rocketmq header":    mk(4+5, 1<<24|5, []byte{0, 1, 0, 0, 0}),
		"rocketmq remark overrun":  mk(4+21, 1<<24|21, append([]byte{0, 1, 0, 1, 0x99, 0, 0, 0, 1, 0, 0, 0, 0}, 0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0)),
	}
}

// nsFrameAbuse runs every frame-level case against addr.
func nsFrameAbuse(t *testing.T, addr string) {
	bystander := nsDial(t, addr)
	nsPing(t, bystander, 1)
	for name, b := range nsBadFrames(t) {
		t.Run(name, func(t *testing.T) {
			conn := nsDial(t, addr)
			if _, err := conn.Write(b); err != nil {
				t.Fatalf("write: %v", err)
			}
			nsExpectClosed(t, conn, nsBound)
			nsPing(t, bystander, 2)
		})
	}
	t.Run("truncated frame then close", func(t *testing.T) {
		conn := nsDial(t, addr)
		f := nsFrame(t, codec.NewRequest(code.PutKvConfig, map[string]string{"namespace": "n", "key": "k", "value": "v"}, []byte("half")))
		_, _ = conn.Write(f[:len(f)/2])
		_ = conn.Close()
		nsPing(t, bystander, 3)
	})
	t.Run("slowloris", func(t *testing.T) {
		conn := nsDial(t, addr)
		req := codec.NewRequest(9999, nil, nil)
		req.Opaque = 77
		f := nsFrame(t, req)
		for i := range f {
			if _, err := conn.Write(f[i : i+1]); err != nil {
				t.Fatalf("byte %d: %v", i, err)
			}
			if i%16 == 0 {
				nsPing(t, bystander, int32(100+i)) // others served meanwhile
			}
			time.Sleep(5 * time.Millisecond)
		}
		resp, err := nsReadFrame(conn, nsBound)
		if err != nil || resp.Opaque != 77 || resp.Code != code.RequestCodeNotSupported {
			t.Fatalf("slow frame answer: %v %+v", err, resp)
		}
	})
	t.Run("10k tiny frames in one write", func(t *testing.T) { nsTinyFrames(t, addr, 10_000) })
	t.Run("bad and good connections at once", func(t *testing.T) { nsConcurrentConns(t, addr, 40) })
	nsPing(t, bystander, 4)
}

// nsConcurrentConns opens n connections sending undecodable frames and n
// sending valid requests, all at once: every bad one is closed, every good
// one answered.
func nsConcurrentConns(t *testing.T, addr string, n int) {
	bad := make([][]byte, 0, n)
	for _, b := range nsBadFrames(t) {
		bad = append(bad, b)
	}
	var wg sync.WaitGroup
	errc := make(chan error, 2*n)
	for i := range n {
		wg.Go(func() {
			conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				errc <- err
				return
			}
			defer conn.Close()
			if _, err := conn.Write(bad[i%len(bad)]); err != nil {
				return // already closed by the server: fine
			}
			_ = conn.SetReadDeadline(time.Now().Add(nsBound))
			if k, err := conn.Read(make([]byte, 1)); k > 0 || isTimeout(err) {
				errc <- fmt.Errorf("bad connection %d not closed (read %d, %v)", i, k, err)
			}
		})
		wg.Go(func() {
			conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				errc <- err
				return
			}
			defer conn.Close()
			req := codec.NewRequest(9999, nil, nil)
			req.Opaque = int32(i + 1)
			f, _ := codec.AppendFrame(nil, req)
			if _, err := conn.Write(f); err != nil {
				errc <- err
				return
			}
			resp, err := nsReadFrame(conn, nsBound)
			if err != nil || resp.Opaque != int32(i+1) || resp.Code != code.RequestCodeNotSupported {
				errc <- fmt.Errorf("good connection %d: %v %+v", i, err, resp)
			}
		})
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
}

// nsTinyFrames writes n small requests in one write and wants one answer
// per opaque (not supported, or SYSTEM_BUSY when the pool is full).
func nsTinyFrames(t *testing.T, addr string, n int) {
	conn := nsDial(t, addr)
	var all []byte
	for i := 1; i <= n; i++ {
		req := codec.NewRequest(9999, nil, nil)
		req.Opaque = int32(i)
		all = append(all, nsFrame(t, req)...)
	}
	werr := make(chan error, 1)
	go func() { _, err := conn.Write(all); werr <- err }()
	seen := make([]bool, n+1)
	for range n {
		resp, err := nsReadFrame(conn, 20*time.Second)
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		if resp.Opaque < 1 || int(resp.Opaque) > n || seen[resp.Opaque] {
			t.Fatalf("unexpected or duplicate opaque %d", resp.Opaque)
		}
		seen[resp.Opaque] = true
		if resp.Code != code.RequestCodeNotSupported && resp.Code != code.SystemBusy {
			t.Fatalf("opaque %d: code %s", resp.Opaque, code.ResponseName(resp.Code))
		}
	}
	if err := <-werr; err != nil {
		t.Fatalf("write: %v", err)
	}
}

// nsOnewayThenSync sends every code as a oneway request without extFields
// and then a sync request on the same connection: the first frame back must
// be the sync answer (oneway requests are never answered, even on error).
func nsOnewayThenSync(t *testing.T, addr string, codes []int32) {
	conn := nsDial(t, addr)
	var all []byte
	for _, c := range codes {
		req := codec.NewRequest(c, nil, []byte("{"))
		req.MarkOneway()
		all = append(all, nsFrame(t, req)...)
	}
	if _, err := conn.Write(all); err != nil {
		t.Fatal(err)
	}
	nsPing(t, conn, 424242)
}

// nsStart starts a name server on 127.0.0.1:0 logging to lg.
func nsStart(t testing.TB, lg *zap.Logger) *namesrv.Namesrv {
	t.Helper()
	cfg := namesrv.NewNamesrvConfig()
	dir := t.TempDir()
	cfg.KVConfigPath = filepath.Join(dir, "kvConfig.json")
	cfg.ConfigStorePath = filepath.Join(dir, "namesrv.properties")
	srv := namesrv.NewNettyServerConfig()
	srv.ListenPort = 0
	srv.ListenAddr = "127.0.0.1:0"
	ns, err := namesrv.New(cfg, srv, lg)
	if err != nil {
		t.Fatalf("namesrv.New: %v", err)
	}
	if err := ns.Start(); err != nil {
		t.Fatalf("namesrv.Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := ns.Shutdown(ctx); err != nil {
			t.Errorf("namesrv.Shutdown: %v", err)
		}
	})
	return ns
}

// nsRegisterReq is REGISTER_BROKER as a 4.9.8 broker sends it, for a
// broker serving topics with 4 queues.
func nsRegisterReq(t testing.TB, name, addr string, topics ...string) *codec.RemotingCommand {
	t.Helper()
	w := body.TopicConfigSerializeWrapper{DataVersion: body.DataVersion{Timestamp: 1000, Counter: 1}, TopicConfigTable: map[string]body.TopicConfig{}}
	for _, tp := range topics {
		tc := body.NewTopicConfig(tp)
		tc.ReadQueueNums, tc.WriteQueueNums = 4, 4
		w.TopicConfigTable[tp] = tc
	}
	b, err := (&body.RegisterBrokerBody{TopicConfigSerializeWrapper: w, FilterServerList: []string{}}).Encode(false)
	if err != nil {
		t.Fatal(err)
	}
	h := &header.RegisterBrokerRequestHeader{BrokerName: name, BrokerAddr: addr, ClusterName: "RobustDataCluster",
		HAServerAddr: addr + "-ha", BrokerID: 0, BodyCrc32: int32(crc32.ChecksumIEEE(b) & 0x7FFFFFFF)}
	return codec.NewRequest(code.RegisterBroker, h.ToExtFields(), b)
}

// nsData is the well-formed state that must survive the abuse: a
// registered broker with nsDataTopic and a KV entry.
type nsData struct {
	t    *testing.T
	c    *remoting.Client // the data broker's connection (kept open)
	addr string
}

func newNsData(t *testing.T, addr string) *nsData {
	d := &nsData{t: t, c: nsClient(t), addr: addr}
	for _, req := range []*codec.RemotingCommand{
		nsRegisterReq(t, nsDataBroker, "127.0.0.1:20911", nsDataTopic),
		codec.NewRequest(code.PutKvConfig, map[string]string{"namespace": "RobustNS", "key": "rk", "value": "rv"}, nil),
	} {
		resp, err := nsCall(d.c, addr, req, nsBound)
		if err != nil || resp.Code != code.Success {
			t.Fatalf("%s: %v %+v", code.RequestName(req.Code), err, resp)
		}
	}
	return d
}

// verify wants the data broker's route and the KV entry unchanged.
func (d *nsData) verify() {
	d.t.Helper()
	req := codec.NewRequest(code.GetRouteinfoByTopic, map[string]string{"topic": nsDataTopic}, nil)
	resp, err := nsCall(d.c, d.addr, req, nsBound)
	if err != nil || resp.Code != code.Success {
		d.t.Fatalf("route: %v %+v", err, resp)
	}
	rd, err := body.DecodeTopicRouteData(resp.Body)
	if err != nil {
		d.t.Fatalf("route body: %v", err)
	}
	if len(rd.BrokerDatas) != 1 || rd.BrokerDatas[0].BrokerName != nsDataBroker ||
		rd.BrokerDatas[0].BrokerAddrs[0] != "127.0.0.1:20911" || len(rd.QueueDatas) != 1 ||
		rd.QueueDatas[0].ReadQueueNums != 4 || rd.QueueDatas[0].WriteQueueNums != 4 || rd.QueueDatas[0].Perm != 6 {
		d.t.Fatalf("route changed: %s", resp.Body)
	}
	req = codec.NewRequest(code.GetKvConfig, map[string]string{"namespace": "RobustNS", "key": "rk"}, nil)
	resp, err = nsCall(d.c, d.addr, req, nsBound)
	if err != nil || resp.Code != code.Success || resp.Ext("value") != "rv" {
		d.t.Fatalf("kv: %v %+v", err, resp)
	}
}

func TestNamesrvRobustEveryCode(t *testing.T) {
	lg, logs := nsLogger(t, false)
	ns := nsStart(t, lg)
	addr := ns.Addr().String()
	data := newNsData(t, addr)
	data.verify()
	var probes []nsProbe
	bodies := nsBodies()
	for _, c := range nsKnownCodes() {
		probes = append(probes, nsProbes(c, bodies)...)
	}
	// REGISTER_BROKER with a compressed garbage body and a wrong CRC.
	reg := nsRegisterReq(t, "broker-a", "127.0.0.1:10911", nsProbeTopic)
	for n, b := range bodies {
		probes = append(probes, nsProbe{name: "REGISTER_BROKER/compressed-" + n, code: code.RegisterBroker,
			ext: nsWith(reg.ExtFields, "compressed", "true"), body: b, ser: codec.JSON})
	}
	probes = append(probes, nsProbe{name: "REGISTER_BROKER/bad-crc", code: code.RegisterBroker,
		ext: nsWith(reg.ExtFields, "bodyCrc32", "12345"), body: reg.Body, ser: codec.JSON})
	t.Logf("%d probes over %d codes", len(probes), len(nsKnownCodes()))
	stop := nsMonitor(t, addr, func() *codec.RemotingCommand {
		return codec.NewRequest(code.GetRouteinfoByTopic, map[string]string{"topic": nsDataTopic}, nil)
	}, code.Success)
	nsSweep(t, addr, probes, 8)
	stop()
	data.verify()
	if p := nsPanics(logs); len(p) > 0 {
		t.Fatalf("%d recovered panics, first: %s", len(p), p[0])
	}
}

func TestNamesrvRobustFrames(t *testing.T) {
	lg, logs := nsLogger(t, false)
	ns := nsStart(t, lg)
	data := newNsData(t, ns.Addr().String())
	nsFrameAbuse(t, ns.Addr().String())
	t.Run("oneway then sync", func(t *testing.T) { nsOnewayThenSync(t, ns.Addr().String(), nsKnownCodes()) })
	data.verify()
	if p := nsPanics(logs); len(p) > 0 {
		t.Fatalf("%d recovered panics, first: %s", len(p), p[0])
	}
}

// TestNamesrvRobustApacheAnswers asserts Apache 4.9.8's answers
// (DefaultRequestProcessor, RemotingCommand.decodeCommandCustomHeader) to
// hostile name-server requests, and that the route table is intact.
func TestNamesrvRobustApacheAnswers(t *testing.T) {
	lg, logs := nsLogger(t, true)
	ns := nsStart(t, lg)
	addr := ns.Addr().String()
	data := newNsData(t, addr)
	reg := nsRegisterReq(t, "broker-x", "127.0.0.1:40911", "XT")
	cases := []struct {
		name   string
		req    *codec.RemotingCommand
		want   int32
		remark string
	}{
		{"register bad crc", codec.NewRequest(code.RegisterBroker, nsWith(reg.ExtFields, "bodyCrc32", "12345"), reg.Body), code.SystemError, "crc32 not match"},
		{"register without brokerName", codec.NewRequest(code.RegisterBroker, nsWithout(reg.ExtFields, "brokerName"), reg.Body), code.SystemError, "the custom field <brokerName> is null"},
		{"register non-numeric brokerId", codec.NewRequest(code.RegisterBroker, nsWith(reg.ExtFields, "brokerId", "x"), reg.Body), code.SystemError, "the custom field <brokerId> has bad value"},
		{"route unknown topic", codec.NewRequest(code.GetRouteinfoByTopic, map[string]string{"topic": "NoSuchT"}, nil), code.TopicNotExist,
			"No topic route info in name server for the topic: NoSuchT\nSee http://rocketmq.apache.org/docs/faq/ for further details."},
		{"route without topic", codec.NewRequest(code.GetRouteinfoByTopic, nil, nil), code.SystemError, "the custom field <topic> is null"},
		{"kv unknown key", codec.NewRequest(code.GetKvConfig, map[string]string{"namespace": "n0", "key": "k0"}, nil), code.QueryNotFound, "No config item, Namespace: n0 Key: k0"},
		{"kv list unknown namespace", codec.NewRequest(code.GetKvlistByNamespace, map[string]string{"namespace": "n0"}, nil), code.QueryNotFound, "No config item, Namespace: n0"},
		{"put kv without key", codec.NewRequest(code.PutKvConfig, map[string]string{"namespace": "n0", "value": "v"}, nil), code.SystemError, "the custom field <key> is null"},
	}
	c := nsClient(t)
	for _, tt := range cases {
		for _, ser := range []codec.SerializeType{codec.JSON, codec.RocketMQ} {
			req := *tt.req
			req.SerializeType = ser
			resp, err := nsCall(c, addr, &req, nsBound)
			if err != nil {
				t.Fatalf("%s/%s: %v", tt.name, ser, err)
			}
			if resp.Code != tt.want || !strings.HasPrefix(resp.Remark, tt.remark) {
				t.Errorf("%s/%s: code %s remark %q, want %s %q", tt.name, ser, code.ResponseName(resp.Code), resp.Remark,
					code.ResponseName(tt.want), tt.remark)
			}
		}
	}
	// None of the refused registrations created a route.
	resp, err := nsCall(c, addr, codec.NewRequest(code.GetRouteinfoByTopic, map[string]string{"topic": "XT"}, nil), nsBound)
	if err != nil || resp.Code != code.TopicNotExist {
		t.Fatalf("refused registration left a route: %v %+v", err, resp)
	}
	data.verify()
	if p := nsPanics(logs); len(p) > 0 {
		t.Fatalf("%d recovered panics, first: %s", len(p), p[0])
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
