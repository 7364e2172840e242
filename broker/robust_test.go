package broker_test

// Hostile-input hardening of the broker: every request code with missing,
// malformed and out-of-range extFields and garbage bodies in both
// serializations, Apache 4.9.8's exact answers for the main checks, and
// frame-level abuse on raw connections. Invariants: an answer arrives in
// time with an Apache response code (and a remark where Apache gives one),
// no panic is recovered by the transport, other connections keep being
// served, and stored data is intact afterwards.

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"slices"
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

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

const (
	rbProbeTopic = "RobustProbeTopic" // the topic hostile requests name (may be mangled)
	rbProbeGroup = "RobustProbeGroup"
	rbDataTopic  = "RobustDataTopic" // only touched by well-formed requests; checked at the end
	rbDataGroup  = "RobustDataGroup"
	rbBound      = 10 * time.Second // answer bound (a suspended pull is held ≤ 5 s)
)

// rbLogger tees a zaptest logger (errors only, to keep output readable)
// with an observer that records every entry carrying a "panic" field: the
// transport and the timed executors log recovered processor panics so.
func rbLogger(t testing.TB, verbose bool) (*zap.Logger, *observer.ObservedLogs) {
	obs, logs := observer.New(zap.WarnLevel)
	base := zap.NewNop()
	if verbose {
		base = zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel))
	}
	return base.WithOptions(zap.WrapCore(func(c zapcore.Core) zapcore.Core { return zapcore.NewTee(c, obs) })), logs
}

// rbPanics lists recovered panics seen so far.
func rbPanics(logs *observer.ObservedLogs) []string {
	var out []string
	for _, e := range logs.FilterFieldKey("panic").All() {
		out = append(out, fmt.Sprintf("%s %v", e.Message, e.ContextMap()))
	}
	return out
}

// rbStartBroker starts a broker without a name server, logging to lg.
func rbStartBroker(t testing.TB, lg *zap.Logger, opts ...testutil.BrokerOption) *broker.Broker {
	t.Helper()
	cfg, scfg := testutil.NewBrokerConfigs(t, "", opts...)
	srv := broker.NewNettyServerConfig()
	srv.ListenPort = 0
	srv.ListenAddr = "127.0.0.1:0"
	b, err := broker.New(cfg, scfg, broker.Options{ServerConfig: srv, FastListenAddr: "127.0.0.1:0", Logger: lg})
	if err != nil {
		t.Fatalf("broker.New: %v", err)
	}
	if err := b.Start(); err != nil {
		t.Fatalf("broker.Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := b.Shutdown(ctx); err != nil {
			t.Errorf("broker.Shutdown: %v", err)
		}
	})
	return b
}

func rbClient(t testing.TB) *remoting.Client {
	c := remoting.NewClient(remoting.NewNettyClientConfig(), zap.NewNop())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = c.Shutdown(ctx)
	})
	return c
}

func rbCall(c *remoting.Client, addr string, req *codec.RemotingCommand, d time.Duration) (*codec.RemotingCommand, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return c.InvokeSync(ctx, addr, req)
}

// rbSane gives plausible values to the header keys the probes touch, so
// that a request gets past the first check and mutations hit deeper code.
var rbSane = map[string]string{
	"topic": rbProbeTopic, "consumerGroup": rbProbeGroup, "producerGroup": rbProbeGroup, "group": rbProbeGroup,
	"defaultTopic": "TBW102", "defaultTopicQueueNums": "4", "queueId": "0", "maxMsgNums": "32",
	"subscription": "*", "clusterName": "DefaultCluster", "brokerName": "broker-a", "readQueueNums": "4",
	"writeQueueNums": "4", "perm": "6", "topicFilterType": "SINGLE_TAG", "clientId": "127.0.0.1@robust",
	"srcGroup": rbProbeGroup, "destGroup": rbProbeGroup + "2", "key": "k", "namespace": "ns",
	"bornTimestamp": "1700000000000", "maxReconsumeTimes": "16", "originTopic": rbProbeTopic,
	"commitOrRollback": "8", "commitLogOffset": "0", "tranStateTableOffset": "0",
	"a": rbProbeGroup, "b": rbProbeTopic, "c": "TBW102", "d": "4", "e": "0", "g": "1700000000000", "j": "0",
}

// rbBaseline is the extFields of a plausible request with code c: every
// field the header class declares, zero or given a sane value.
func rbBaseline(c int32) map[string]string {
	m := map[string]string{}
	if h := header.NewRequestHeader(c); h != nil {
		m = h.ToExtFields()
	}
	for k := range m {
		if v, ok := rbSane[k]; ok {
			m[k] = v
		}
	}
	return m
}

// rbProbe is one hostile request.
type rbProbe struct {
	name    string
	code    int32
	ext     map[string]string
	body    []byte
	ser     codec.SerializeType
	missing string // the key left out, if any
	mayHold bool   // Java may leave it unanswered (END_TRANSACTION neither commit nor rollback)
}

// rbBadNumbers replace numeric values: non-numeric, empty, overflowing,
// negative and extreme values.
var rbBadNumbers = []string{"x", "", "99999999999999999999", "-1", "2147483647", "-9223372036854775808"}

// rbBodies are garbage bodies: random bytes, truncated JSON, deep nesting,
// a huge array, fastjson-style keys and a lone NUL.
func rbBodies() map[string][]byte {
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

// rbMayHold reports whether Java may legitimately never answer a request
// with code c and extFields ext: EndTransactionProcessor returns null (no
// answer) unless commitOrRollback is commit (8) or rollback (12);
// GET_BROKER_CLUSTER_ACL_INFO is never answered with ACL off.
func rbMayHold(c int32, ext map[string]string) bool {
	switch c {
	case code.EndTransaction:
		v := ext["commitOrRollback"]
		return v != "8" && v != "12"
	case code.GetBrokerClusterAclInfo:
		return true
	}
	return false
}

// rbKnownCodes lists every request code with a Java name, in [0, 1100).
func rbKnownCodes() []int32 {
	var out []int32
	for c := int32(0); c < 1100; c++ {
		if code.RequestName(c) != strconv.Itoa(int(c)) {
			out = append(out, c)
		}
	}
	return out
}

// rbProbes builds the hostile requests for code c.
func rbProbes(c int32, bodies map[string][]byte) []rbProbe {
	base := rbBaseline(c)
	name := code.RequestName(c)
	var ps []rbProbe
	// Both serializations where they differ (ROCKETMQ reads an empty value
	// as a Java null); values and bodies travel alike in both, so those go
	// as JSON only to keep the run short.
	add := func(n string, ext map[string]string, b []byte, missing string) {
		sers := []codec.SerializeType{codec.JSON, codec.RocketMQ}
		if strings.Contains(n, "=") || strings.HasPrefix(n, "body-") {
			sers = sers[:1]
		}
		for _, ser := range sers {
			ps = append(ps, rbProbe{name: name + "/" + n + "/" + ser.String(), code: c, ext: ext, body: b, ser: ser,
				missing: missing, mayHold: rbMayHold(c, ext)})
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
		add("missing-"+k, rbWithout(base, k), nil, k)
		if _, err := strconv.ParseInt(base[k], 10, 64); err != nil {
			continue
		}
		for _, v := range rbBadNumbers {
			add(k+"="+strconv.Quote(v), rbWith(base, k, v), nil, "")
		}
	}
	for n, b := range bodies {
		add("body-"+n, base, b, "")
	}
	return ps
}

func rbWithout(m map[string]string, k string) map[string]string {
	out := make(map[string]string, len(m))
	for kk, v := range m {
		if kk != k {
			out[kk] = v
		}
	}
	return out
}

func rbWith(m map[string]string, k, v string) map[string]string {
	out := rbWithout(m, k)
	out[k] = v
	return out
}

func (p rbProbe) request() *codec.RemotingCommand {
	req := codec.NewRequest(p.code, p.ext, p.body)
	req.SerializeType = p.ser
	return req
}

// rbRemarkRequired lists response codes Apache always sends with a remark.
var rbRemarkRequired = map[int32]bool{
	code.SystemError: true, code.RequestCodeNotSupported: true, code.TopicNotExist: true,
	code.SubscriptionGroupNotExist: true, code.NoPermission: true, code.MessageIllegal: true,
}

// rbCheck asserts what a client observes for p: an Apache response code,
// a remark where Apache always gives one, and for a missing required
// header field Java's RemotingCommandException text.
func rbCheck(p rbProbe, resp *codec.RemotingCommand) error {
	if !resp.IsResponse() {
		return fmt.Errorf("not a response: %+v", resp)
	}
	if code.ResponseName(resp.Code) == strconv.Itoa(int(resp.Code)) {
		return fmt.Errorf("non-Apache response code %d remark %q", resp.Code, resp.Remark)
	}
	if rbRemarkRequired[resp.Code] && resp.Remark == "" {
		return fmt.Errorf("code %s without remark", code.ResponseName(resp.Code))
	}
	if p.missing != "" && resp.Code != code.RequestCodeNotSupported {
		if want := rbNullFieldError(p); want != "" && (resp.Code != code.SystemError || !strings.Contains(resp.Remark, want)) {
			return fmt.Errorf("missing %s: code %s remark %q, want SYSTEM_ERROR %q",
				p.missing, code.ResponseName(resp.Code), resp.Remark, want)
		}
	}
	return nil
}

// rbNullFieldError is the RemotingCommandException text Java gives for
// p's header as the server decodes it ("the custom field <x> is null"), or
// "" when every required field is there. The ROCKETMQ serialization turns
// empty values into Java nulls, so the request goes through the codec first.
func rbNullFieldError(p rbProbe) string {
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

// rbSweep sends every probe from workers goroutines and reports failures.
func rbSweep(t *testing.T, addr string, probes []rbProbe, workers int) {
	t.Helper()
	c := rbClient(t)
	ch := make(chan rbProbe)
	var mu sync.Mutex
	var fails []string
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for p := range ch {
				var resp *codec.RemotingCommand
				var err error
				if p.mayHold {
					// A timeout closes the channel: each held request gets its own.
					if resp, err = rbCall(rbClient(t), addr, p.request(), time.Second); errors.Is(err, remoting.ErrTimeout) {
						continue
					}
				} else {
					resp, err = rbCall(c, addr, p.request(), rbBound)
				}
				if err == nil {
					err = rbCheck(p, resp)
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

// rbMonitor keeps a second connection busy with a cheap request while the
// sweep runs and reports the first failure.
func rbMonitor(t *testing.T, addr string, req func() *codec.RemotingCommand, want int32) (stop func()) {
	c := rbClient(t)
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
			resp, err := rbCall(c, addr, req(), rbBound)
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

// rbData is the well-formed traffic that must survive the abuse.
type rbData struct {
	t    *testing.T
	c    *remoting.Client
	addr string
	sent []string
}

func (d *rbData) send(bodyText string) {
	d.t.Helper()
	h := &header.SendMessageRequestHeader{ProducerGroup: "RobustPG", Topic: rbDataTopic, DefaultTopic: "TBW102",
		DefaultTopicQueueNums: 4, QueueID: 1, BornTimestamp: time.Now().UnixMilli(),
		Properties: message.MarshalProperties(map[string]string{"KEYS": bodyText})}
	resp, err := rbCall(d.c, d.addr, codec.NewRequest(code.SendMessage, h.ToExtFields(), []byte(bodyText)), rbBound)
	if err != nil || resp.Code != code.Success {
		d.t.Fatalf("send %q: %v %+v", bodyText, err, resp)
	}
	d.sent = append(d.sent, bodyText)
}

func rbPullReq(topic, group string, queueID int32, offset int64) *codec.RemotingCommand {
	h := &header.PullMessageRequestHeader{ConsumerGroup: group, Topic: topic, QueueID: queueID,
		QueueOffset: offset, MaxMsgNums: 32, SysFlag: 4, Subscription: "*"}
	return codec.NewRequest(code.PullMessage, h.ToExtFields(), nil)
}

// verify pulls queue 1 of the data topic from 0 and wants exactly d.sent.
func (d *rbData) verify() {
	d.t.Helper()
	var got []string
	testutil.Eventually(d.t, 5*time.Second, func() error {
		resp, err := rbCall(d.c, d.addr, rbPullReq(rbDataTopic, rbDataGroup, 1, 0), rbBound)
		if err != nil {
			return err
		}
		if resp.Code != code.Success {
			return fmt.Errorf("pull code %s remark %q", code.ResponseName(resp.Code), resp.Remark)
		}
		ms, err := message.DecodeRecords(resp.Body, true)
		if err != nil {
			return err
		}
		got = got[:0]
		for i, m := range ms {
			if m.QueueOffset != int64(i) || m.Topic != rbDataTopic {
				return fmt.Errorf("record %d: offset %d topic %q", i, m.QueueOffset, m.Topic)
			}
			got = append(got, string(m.Body))
		}
		if len(got) != len(d.sent) {
			return fmt.Errorf("pulled %d messages, sent %d", len(got), len(d.sent))
		}
		return nil
	})
	if strings.Join(got, "|") != strings.Join(d.sent, "|") {
		d.t.Fatalf("pulled %q, sent %q", got, d.sent)
	}
}

func TestBrokerRobustEveryCode(t *testing.T) {
	lg, logs := rbLogger(t, false)
	b := rbStartBroker(t, lg)
	addr := b.Addr().String()
	data := &rbData{t: t, c: rbClient(t), addr: addr}
	data.send("before-0")
	data.send("before-1")
	data.verify()

	var probes []rbProbe
	bodies := rbBodies()
	for _, c := range rbKnownCodes() {
		probes = append(probes, rbProbes(c, bodies)...)
	}
	t.Logf("%d probes over %d codes", len(probes), len(rbKnownCodes()))
	stop := rbMonitor(t, addr, func() *codec.RemotingCommand { return codec.NewRequest(9999, nil, nil) }, code.RequestCodeNotSupported)
	rbSweep(t, addr, probes, 16)
	stop()

	data.send("after-0")
	data.verify()
	if p := rbPanics(logs); len(p) > 0 {
		t.Fatalf("%d recovered panics, first: %s", len(p), p[0])
	}
	// The fast port serves the same processors.
	resp, err := rbCall(data.c, b.FastAddr().String(), codec.NewRequest(code.SendMessage, nil, nil), rbBound)
	if err != nil || resp.Code != code.SystemError || resp.Remark == "" {
		t.Fatalf("fast port send without extFields: %v %+v", err, resp)
	}
}

// rbSendExt is a SEND_MESSAGE header for topic/queueID.
func rbSendExt(topic string, queueID int32) map[string]string {
	h := &header.SendMessageRequestHeader{ProducerGroup: "RobustPG", Topic: topic, DefaultTopic: "TBW102",
		DefaultTopicQueueNums: 4, QueueID: queueID, BornTimestamp: 1700000000000}
	return h.ToExtFields()
}

func rbPullExt(topic string, queueID int32, offset int64, maxNums int32) map[string]string {
	h := &header.PullMessageRequestHeader{ConsumerGroup: rbDataGroup, Topic: topic, QueueID: queueID,
		QueueOffset: offset, MaxMsgNums: maxNums, SysFlag: 4, Subscription: "*"}
	return h.ToExtFields()
}

// TestBrokerRobustApacheAnswers asserts Apache 4.9.8's exact answers
// (AbstractSendMessageProcessor.msgCheck, TopicValidator,
// PullMessageProcessor, RemotingCommand.decodeCommandCustomHeader) to
// hostile send and pull requests, and that the queue is intact afterwards.
func TestBrokerRobustApacheAnswers(t *testing.T) {
	lg, logs := rbLogger(t, true)
	b := rbStartBroker(t, lg)
	addr := b.Addr().String()
	c := rbClient(t)
	for i := range 3 {
		resp, err := rbCall(c, addr, codec.NewRequest(code.SendMessage, rbSendExt("RbT", 0), []byte("m"+strconv.Itoa(i))), rbBound)
		if err != nil || resp.Code != code.Success {
			t.Fatalf("send: %v %+v", err, resp)
		}
	}
	tc := "TopicConfig [topicName=RbT, readQueueNums=4, writeQueueNums=4, perm=RW-, topicFilterType=SINGLE_TAG, topicSysFlag=0, order=false] Producer: 127.0.0.1:"
	v2 := func(ext map[string]string) map[string]string {
		var h header.SendMessageRequestHeader
		if err := h.FromExtFields(ext); err != nil {
			t.Fatal(err)
		}
		return header.CreateSendMessageRequestHeaderV2(&h).ToExtFields()
	}
	long := strings.Repeat("T", 128)
	cases := []struct {
		name   string
		code   int32
		ext    map[string]string
		want   int32
		remark string // prefix; Java's NumberFormatException text (with a stack frame) is not copied
	}{
		{"send queueId=writeQueueNums", code.SendMessage, rbSendExt("RbT", 4), code.SystemError, "request queueId[4] is illegal, " + tc},
		{"sendV2 queueId=MaxInt32", code.SendMessageV2, v2(rbSendExt("RbT", 2147483647)), code.SystemError, "request queueId[2147483647] is illegal, " + tc},
		{"send illegal topic chars", code.SendMessage, rbSendExt("bad topic!", 0), code.SystemError, "The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"},
		{"send topic too long", code.SendMessage, rbSendExt(long, 0), code.SystemError, "The specified topic is longer than topic max length."},
		{"send blank topic", code.SendMessage, rbSendExt("", 0), code.SystemError, "The specified topic is blank."},
		{"send to schedule topic", code.SendMessage, rbSendExt("SCHEDULE_TOPIC_XXXX", 0), code.NoPermission, "Sending message to topic[SCHEDULE_TOPIC_XXXX] is forbidden."},
		{"send without topic", code.SendMessage, rbWithout(rbSendExt("RbT", 0), "topic"), code.SystemError, "the custom field <topic> is null"},
		{"sendV2 without b", code.SendMessageV2, rbWithout(v2(rbSendExt("RbT", 0)), "b"), code.SystemError, "the custom field <b> is null"},
		{"pull queueId=-1", code.PullMessage, rbPullExt("RbT", -1, 0, 32), code.SystemError, "queueId[-1] is illegal, topic:[RbT] topicConfig.readQueueNums:[4] consumer:[/127.0.0.1:"},
		{"pull queueId=readQueueNums", code.PullMessage, rbPullExt("RbT", 4, 0, 32), code.SystemError, "queueId[4] is illegal, topic:[RbT] topicConfig.readQueueNums:[4] consumer:["},
		{"pull unknown topic", code.PullMessage, rbPullExt("NoSuchT", 0, 0, 32), code.TopicNotExist, "topic[NoSuchT] not exist, apply first please! \nSee http://rocketmq.apache.org/docs/faq/ for further details."},
		{"pull offset overflow badly", code.PullMessage, rbPullExt("RbT", 0, 1<<40, 32), code.PullOffsetMoved, "OFFSET_OVERFLOW_BADLY"},
		{"pull offset negative", code.PullMessage, rbPullExt("RbT", 0, -5, 32), code.PullOffsetMoved, "OFFSET_TOO_SMALL"},
		{"pull offset at max", code.PullMessage, rbPullExt("RbT", 0, 3, 32), code.PullNotFound, "OFFSET_OVERFLOW_ONE"},
		{"pull huge maxMsgNums", code.PullMessage, rbPullExt("RbT", 0, 0, 2147483647), code.Success, "FOUND"},
		{"pull without queueOffset", code.PullMessage, rbWithout(rbPullExt("RbT", 0, 0, 32), "queueOffset"), code.SystemError, "the custom field <queueOffset> is null"},
		{"pull non-numeric queueId", code.PullMessage, rbWith(rbPullExt("RbT", 0, 0, 32), "queueId", "x"), code.SystemError, "the custom field <queueId> has bad value \"x\""},
		{"send overflowing queueId", code.SendMessage, rbWith(rbSendExt("RbT", 0), "queueId", "99999999999999999999"), code.SystemError, "the custom field <queueId> has bad value"},
	}
	for _, tt := range cases {
		for _, ser := range []codec.SerializeType{codec.JSON, codec.RocketMQ} {
			if ser == codec.RocketMQ && tt.ext["topic"] == "" {
				continue // ROCKETMQ carries "" as a Java null: "the custom field <topic> is null"
			}
			req := codec.NewRequest(tt.code, tt.ext, []byte("x"))
			req.SerializeType = ser
			resp, err := rbCall(c, addr, req, rbBound)
			if err != nil {
				t.Fatalf("%s/%s: %v", tt.name, ser, err)
			}
			if resp.Code != tt.want || !strings.HasPrefix(resp.Remark, tt.remark) || resp.Remark == "" {
				t.Errorf("%s/%s: code %s remark %q, want %s %q…", tt.name, ser, code.ResponseName(resp.Code), resp.Remark,
					code.ResponseName(tt.want), tt.remark)
			}
		}
	}
	// A negative queueId picks a queue (Java's randomQueueId) and stores.
	resp, err := rbCall(c, addr, codec.NewRequest(code.SendMessage, rbSendExt("RbT", -1), []byte("neg")), rbBound)
	if err != nil || resp.Code != code.Success {
		t.Fatalf("send queueId=-1: %v %+v", err, resp)
	}
	if q, _ := strconv.Atoi(resp.Ext("queueId")); q < 0 || q > 3 {
		t.Fatalf("send queueId=-1 stored in queue %q", resp.Ext("queueId"))
	}
	// Queue 0 still holds exactly m0..m2, and the huge pull returned them.
	resp, err = rbCall(c, addr, codec.NewRequest(code.PullMessage, rbPullExt("RbT", 0, 0, 2147483647), nil), rbBound)
	if err != nil || resp.Code != code.Success {
		t.Fatalf("pull: %v %+v", err, resp)
	}
	ms, err := message.DecodeRecords(resp.Body, true)
	if err != nil || len(ms) < 3 || string(ms[0].Body) != "m0" || string(ms[1].Body) != "m1" || string(ms[2].Body) != "m2" {
		t.Fatalf("queue 0 after abuse: %d records, %v", len(ms), err)
	}
	if p := rbPanics(logs); len(p) > 0 {
		t.Fatalf("%d recovered panics, first: %s", len(p), p[0])
	}
}

// ---- frame-level abuse on raw connections ----

func rbDial(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

func rbFrame(t testing.TB, req *codec.RemotingCommand) []byte {
	t.Helper()
	f, err := codec.AppendFrame(nil, req)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	return f
}

// rbReadFrame reads one whole frame from conn within d.
func rbReadFrame(conn net.Conn, d time.Duration) (*codec.RemotingCommand, error) {
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

// rbExpectClosed wants the server to close conn (EOF or reset) within d
// without sending anything.
func rbExpectClosed(t *testing.T, conn net.Conn, d time.Duration) {
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

// rbPing sends an unsupported code on conn and wants its answer.
func rbPing(t *testing.T, conn net.Conn, opaque int32) {
	t.Helper()
	req := codec.NewRequest(9999, nil, nil)
	req.Opaque = opaque
	if _, err := conn.Write(rbFrame(t, req)); err != nil {
		t.Fatalf("ping write: %v", err)
	}
	resp, err := rbReadFrame(conn, rbBound)
	if err != nil || resp.Opaque != opaque || resp.Code != code.RequestCodeNotSupported {
		t.Fatalf("ping %d: %v %+v", opaque, err, resp)
	}
}

// rbBadFrames are byte streams whose first frame cannot be decoded: Java
// closes the channel (NettyDecoder) and so must we.
func rbBadFrames(t testing.TB) map[string][]byte {
	valid := rbFrame(t, codec.NewRequest(9999, map[string]string{"k": "v"}, []byte("body")))
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
		"garbage json header":      mk(4+9, 9, []byte("not json!")),
		"truncated json header":    mk(4+9, 9, []byte(`{"code":1`)),
		"short rocketmq header":    mk(4+5, 1<<24|5, []byte{0, 1, 0, 0, 0}),
		"rocketmq remark overrun":  mk(4+21, 1<<24|21, append([]byte{0, 1, 0, 1, 0x99, 0, 0, 0, 1, 0, 0, 0, 0}, 0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0)),
	}
}

// rbFrameAbuse runs every frame-level case against addr.
func rbFrameAbuse(t *testing.T, addr string) {
	bystander := rbDial(t, addr)
	rbPing(t, bystander, 1)
	for name, b := range rbBadFrames(t) {
		t.Run(name, func(t *testing.T) {
			conn := rbDial(t, addr)
			if _, err := conn.Write(b); err != nil {
				t.Fatalf("write: %v", err)
			}
			rbExpectClosed(t, conn, rbBound)
			rbPing(t, bystander, 2)
		})
	}
	t.Run("truncated frame then close", func(t *testing.T) {
		conn := rbDial(t, addr)
		f := rbFrame(t, codec.NewRequest(code.SendMessage, rbSendExt("RbT", 0), []byte("half")))
		_, _ = conn.Write(f[:len(f)/2])
		_ = conn.Close()
		rbPing(t, bystander, 3)
	})
	t.Run("slowloris", func(t *testing.T) {
		conn := rbDial(t, addr)
		req := codec.NewRequest(9999, nil, nil)
		req.Opaque = 77
		f := rbFrame(t, req)
		for i := range f {
			if _, err := conn.Write(f[i : i+1]); err != nil {
				t.Fatalf("byte %d: %v", i, err)
			}
			if i%16 == 0 {
				rbPing(t, bystander, int32(100+i)) // others served meanwhile
			}
			time.Sleep(5 * time.Millisecond)
		}
		resp, err := rbReadFrame(conn, rbBound)
		if err != nil || resp.Opaque != 77 || resp.Code != code.RequestCodeNotSupported {
			t.Fatalf("slow frame answer: %v %+v", err, resp)
		}
	})
	t.Run("10k tiny frames in one write", func(t *testing.T) { rbTinyFrames(t, addr, 10_000) })
	t.Run("bad and good connections at once", func(t *testing.T) { rbConcurrentConns(t, addr, 40) })
	rbPing(t, bystander, 4)
}

// rbConcurrentConns opens n connections sending undecodable frames and n
// sending valid requests, all at once: every bad one is closed, every good
// one answered.
func rbConcurrentConns(t *testing.T, addr string, n int) {
	bad := make([][]byte, 0, n)
	for _, b := range rbBadFrames(t) {
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
			_ = conn.SetReadDeadline(time.Now().Add(rbBound))
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
			resp, err := rbReadFrame(conn, rbBound)
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

// rbTinyFrames writes n small requests in one write and wants one answer
// per opaque (not supported, or SYSTEM_BUSY when the pool is full).
func rbTinyFrames(t *testing.T, addr string, n int) {
	conn := rbDial(t, addr)
	var all []byte
	for i := 1; i <= n; i++ {
		req := codec.NewRequest(9999, nil, nil)
		req.Opaque = int32(i)
		all = append(all, rbFrame(t, req)...)
	}
	werr := make(chan error, 1)
	go func() { _, err := conn.Write(all); werr <- err }()
	seen := make([]bool, n+1)
	for range n {
		resp, err := rbReadFrame(conn, 20*time.Second)
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

// rbOnewayThenSync sends every code as a oneway request without extFields
// and then a sync request on the same connection: the first frame back must
// be the sync answer (oneway requests are never answered, even on error).
func rbOnewayThenSync(t *testing.T, addr string, codes []int32) {
	conn := rbDial(t, addr)
	var all []byte
	for _, c := range codes {
		req := codec.NewRequest(c, nil, []byte("{"))
		req.MarkOneway()
		all = append(all, rbFrame(t, req)...)
	}
	if _, err := conn.Write(all); err != nil {
		t.Fatal(err)
	}
	rbPing(t, conn, 424242)
}

// rbCloseInFlight writes sends and pulls (one of them suspended, then woken
// by a message) and closes the connection before the answers: the broker
// must drop them quietly and keep serving.
func rbCloseInFlight(t *testing.T, addr string) {
	conn := rbDial(t, addr)
	held := rbPullExt("RbHeld", 0, 0, 32)
	held["sysFlag"] = "6" // FLAG_SUSPEND | FLAG_SUBSCRIPTION
	held["suspendTimeoutMillis"] = "1000"
	c := rbClient(t)
	if resp, err := rbCall(c, addr, codec.NewRequest(code.SendMessage, rbSendExt("RbHeld", 1), []byte("x")), rbBound); err != nil || resp.Code != code.Success {
		t.Fatalf("create topic: %v %+v", err, resp)
	}
	var all []byte
	all = append(all, rbFrame(t, codec.NewRequest(code.PullMessage, held, nil))...)
	for i := range 200 {
		all = append(all, rbFrame(t, codec.NewRequest(code.SendMessage, rbSendExt("RbHeld", 1), []byte("in-flight-"+strconv.Itoa(i))))...)
		all = append(all, rbFrame(t, codec.NewRequest(code.PullMessage, rbPullExt("RbHeld", 1, 0, 32), nil))...)
	}
	if _, err := conn.Write(all); err != nil {
		t.Fatal(err)
	}
	_ = conn.Close()
	// Wake the held pull after its connection is gone.
	time.Sleep(100 * time.Millisecond)
	if resp, err := rbCall(c, addr, codec.NewRequest(code.SendMessage, rbSendExt("RbHeld", 0), []byte("wake")), rbBound); err != nil || resp.Code != code.Success {
		t.Fatalf("wake send: %v %+v", err, resp)
	}
	// The held pull's timeout passes too; the broker still answers.
	time.Sleep(1200 * time.Millisecond)
	resp, err := rbCall(c, addr, codec.NewRequest(code.PullMessage, rbPullExt("RbHeld", 0, 0, 32), nil), rbBound)
	if err != nil || resp.Code != code.Success {
		t.Fatalf("pull after: %v %+v", err, resp)
	}
	if ms, err := message.DecodeRecords(resp.Body, true); err != nil || len(ms) != 1 || string(ms[0].Body) != "wake" {
		t.Fatalf("queue 0 after in-flight close: %d records %v", len(ms), err)
	}
}

func TestBrokerRobustFrames(t *testing.T) {
	lg, logs := rbLogger(t, false)
	b := rbStartBroker(t, lg)
	rbFrameAbuse(t, b.Addr().String())
	t.Run("oneway then sync", func(t *testing.T) { rbOnewayThenSync(t, b.Addr().String(), rbKnownCodes()) })
	t.Run("close with requests in flight", func(t *testing.T) { rbCloseInFlight(t, b.Addr().String()) })
	if p := rbPanics(logs); len(p) > 0 {
		t.Fatalf("%d recovered panics, first: %s", len(p), p[0])
	}
}

// TestBrokerRobustMidRecordOffsets points the requests that take a raw
// CommitLog offset (VIEW_MESSAGE_BY_ID, CONSUMER_SEND_MSG_BACK,
// END_TRANSACTION commit and rollback) at record starts, into the middle
// of records, past the end and below zero: every answer is an Apache code,
// real records are found, nothing panics and the queue is unchanged.
func TestBrokerRobustMidRecordOffsets(t *testing.T) {
	lg, logs := rbLogger(t, false)
	b := rbStartBroker(t, lg)
	addr := b.Addr().String()
	c := rbClient(t)
	var starts []int64
	for i, body := range []string{"short", strings.Repeat("m", 300), "third"} {
		resp, err := rbCall(c, addr, codec.NewRequest(code.SendMessage, rbSendExt("RbMid", 0), []byte(body)), rbBound)
		if err != nil || resp.Code != code.Success {
			t.Fatalf("send %d: %v %+v", i, err, resp)
		}
		_, off, err := message.DecodeOffsetMsgID(resp.Ext("msgId"))
		if err != nil {
			t.Fatalf("msgId %q: %v", resp.Ext("msgId"), err)
		}
		starts = append(starts, off)
	}
	offsets := []int64{-1, 1, 3, 4, 7, 8, 13, 17, 100, starts[1] - 1, starts[1] + 1, starts[2] + 5, starts[2] + 200, 1 << 20, 1 << 40}
	offsets = append(offsets, starts...)
	for _, off := range offsets {
		o := strconv.FormatInt(off, 10)
		reqs := []*codec.RemotingCommand{
			codec.NewRequest(code.ViewMessageById, map[string]string{"offset": o}, nil),
			codec.NewRequest(code.ConsumerSendMsgBack, map[string]string{"offset": o, "group": rbDataGroup, "delayLevel": "0"}, nil),
		}
		for _, cr := range []string{"8", "12"} {
			reqs = append(reqs, codec.NewRequest(code.EndTransaction, map[string]string{"producerGroup": "RobustPG",
				"tranStateTableOffset": "0", "commitLogOffset": o, "commitOrRollback": cr, "msgId": "x", "fromTransactionCheck": "false"}, nil))
		}
		for _, req := range reqs {
			resp, err := rbCall(c, addr, req, rbBound)
			if err == nil {
				err = rbCheck(rbProbe{code: req.Code}, resp)
			}
			if err != nil {
				t.Errorf("%s offset %d: %v", code.RequestName(req.Code), off, err)
				continue
			}
			if req.Code == code.ViewMessageById && slices.Contains(starts, off) {
				m, derr := message.DecodeRecord(resp.Body, true)
				if resp.Code != code.Success || derr != nil || m.CommitLogOffset != off {
					t.Errorf("view record at %d: %s %q %v", off, code.ResponseName(resp.Code), resp.Remark, derr)
				}
			}
		}
	}
	resp, err := rbCall(c, addr, codec.NewRequest(code.PullMessage, rbPullExt("RbMid", 0, 0, 32), nil), rbBound)
	if err != nil || resp.Code != code.Success {
		t.Fatalf("pull: %v %+v", err, resp)
	}
	ms, err := message.DecodeRecords(resp.Body, true)
	if err != nil || len(ms) != 3 || string(ms[0].Body) != "short" || string(ms[2].Body) != "third" {
		t.Fatalf("queue after offset abuse: %d records %v", len(ms), err)
	}
	if p := rbPanics(logs); len(p) > 0 {
		t.Fatalf("%d recovered panics, first: %s", len(p), p[0])
	}
}

// TestBrokerRobustBatchBodies sends SEND_BATCH_MESSAGE with every prefix of
// a valid batch body that cuts an item and with corrupted length fields: each is refused
// with SYSTEM_ERROR or MESSAGE_ILLEGAL and stores nothing (no half
// batch); the intact batch is then stored whole.
func TestBrokerRobustBatchBodies(t *testing.T) {
	lg, logs := rbLogger(t, false)
	b := rbStartBroker(t, lg)
	addr := b.Addr().String()
	c := rbClient(t)
	items := []message.BatchItem{
		{Body: []byte("one"), PropertiesString: message.MarshalProperties(map[string]string{"UNIQ_KEY": "K1"})},
		{Flag: 3, Body: []byte("two")},
		{Body: []byte("three"), PropertiesString: message.MarshalProperties(map[string]string{"KEYS": "k"})},
	}
	full := message.EncodeBatch(nil, items)
	h1 := &header.SendMessageRequestHeader{ProducerGroup: "RobustPG", Topic: "RbBatch", DefaultTopic: "TBW102",
		DefaultTopicQueueNums: 4, BornTimestamp: 1700000000000, Batch: true}
	ext := header.CreateSendMessageRequestHeaderV2(h1).ToExtFields()
	send := func(body []byte) *codec.RemotingCommand {
		resp, err := rbCall(c, addr, codec.NewRequest(code.SendBatchMessage, ext, body), rbBound)
		if err != nil {
			t.Fatalf("batch send: %v", err)
		}
		return resp
	}
	boundary := map[int]bool{}
	for i := range items {
		boundary[len(message.EncodeBatch(nil, items[:i+1]))] = true // a shorter but whole batch
	}
	var bad [][]byte
	for cut := 1; cut < len(full); cut++ {
		if !boundary[cut] {
			bad = append(bad, full[:cut])
		}
	}
	for _, v := range []uint32{0, 1, 0x7fffffff, 0xffffffff} {
		for _, at := range []int{0, 16} { // totalSize, bodyLen of the first item
			x := append([]byte(nil), full...)
			binary.BigEndian.PutUint32(x[at:], v)
			bad = append(bad, x)
		}
	}
	for i, body := range bad {
		resp := send(body)
		if (resp.Code != code.SystemError && resp.Code != code.MessageIllegal) || resp.Remark == "" {
			t.Errorf("bad batch %d (%d bytes): code %s remark %q", i, len(body), code.ResponseName(resp.Code), resp.Remark)
		}
	}
	if resp := send(full); resp.Code != code.Success || resp.Ext("queueOffset") != "0" {
		t.Fatalf("intact batch after the bad ones: %s %q %v", code.ResponseName(resp.Code), resp.Remark, resp.ExtFields)
	}
	// The send answers before the consume queue is dispatched: wait for
	// the batch's three entries, then check nothing else is there.
	testutil.Eventually(t, 5*time.Second, func() error {
		if n := b.Store().MaxOffsetInQueue("RbBatch", 0); n < 3 {
			return fmt.Errorf("%d entries dispatched", n)
		}
		return nil
	})
	resp, err := rbCall(c, addr, codec.NewRequest(code.PullMessage, rbPullExt("RbBatch", 0, 0, 32), nil), rbBound)
	if err != nil || resp.Code != code.Success {
		t.Fatalf("pull: %v %+v", err, resp)
	}
	ms, err := message.DecodeRecords(resp.Body, true)
	if err != nil || len(ms) != 3 || string(ms[0].Body) != "one" || string(ms[2].Body) != "three" {
		t.Fatalf("queue after bad batches: %d records %v", len(ms), err)
	}
	if p := rbPanics(logs); len(p) > 0 {
		t.Fatalf("%d recovered panics, first: %s", len(p), p[0])
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
