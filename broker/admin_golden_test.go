package broker_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// goldenBytes reads a recorded frame of the JSON session (nil when absent).
func goldenBytes(t *testing.T, name string) []byte {
	t.Helper()
	dir := os.Getenv("RMQ_GOLDEN_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "golden")
	}
	data, err := os.ReadFile(filepath.Join(dir, "frames", "json", name))
	if err != nil {
		return nil
	}
	return data
}

// rawConn is one TCP connection speaking whole frames, so that the
// broker's answers can be compared with the recorded bytes.
type rawConn struct {
	t *testing.T
	c net.Conn
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return &rawConn{t: t, c: c}
}

func (r *rawConn) readFrame() []byte {
	r.t.Helper()
	_ = r.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	var l [4]byte
	if _, err := io.ReadFull(r.c, l[:]); err != nil {
		r.t.Fatal(err)
	}
	frame := make([]byte, 4+binary.BigEndian.Uint32(l[:]))
	copy(frame, l[:])
	if _, err := io.ReadFull(r.c, frame[4:]); err != nil {
		r.t.Fatal(err)
	}
	return frame
}

// exchange writes a recorded request and returns the response to it plus
// any request the broker started meanwhile (NOTIFY_CONSUMER_IDS_CHANGED).
func (r *rawConn) exchange(req []byte) (resp []byte, pushed [][]byte) {
	r.t.Helper()
	if _, err := r.c.Write(req); err != nil {
		r.t.Fatal(err)
	}
	for {
		f := r.readFrame()
		cmd, err := codec.Decode(f)
		if err != nil {
			r.t.Fatal(err)
		}
		if cmd.IsResponse() {
			return f, pushed
		}
		pushed = append(pushed, f)
	}
}

// TestBrokerAdminGoldenReplay sends the requests the Java client and
// mqadmin sent in golden scenario 4 and compares the answers byte for byte
// with the Java broker's (same opaque, so whole frames compare).
func TestBrokerAdminGoldenReplay(t *testing.T) {
	if goldenBytes(t, "001024-client2broker-req-HEART_BEAT.bin") == nil {
		t.Skip("golden set absent")
	}
	b := testutil.StartBroker(t, "")
	rc := dialRaw(t, b.Addr().String())
	for _, step := range []struct{ req, resp, pushed string }{
		{"001024-client2broker-req-HEART_BEAT.bin", "001027-broker2client-resp-SUCCESS.bin",
			"001026-broker2client-oneway-NOTIFY_CONSUMER_IDS_CHANGED.bin"},
		{"001089-client2broker-req-UNREGISTER_CLIENT.bin", "001090-broker2client-resp-SUCCESS.bin", ""},
		{"001121-client2broker-req-UPDATE_AND_CREATE_TOPIC.bin", "001124-broker2client-resp-SUCCESS.bin", ""},
		{"001482-client2broker-req-DELETE_TOPIC_IN_BROKER.bin", "001483-broker2client-resp-SUCCESS.bin", ""},
		{"001246-client2broker-req-UPDATE_AND_CREATE_SUBSCRIPTIONGROUP.bin", "001249-broker2client-resp-SUCCESS.bin", ""},
		{"001408-client2broker-req-GET_CONSUMER_CONNECTION_LIST.bin", "001409-broker2client-resp-CONSUMER_NOT_ONLINE.bin", ""},
	} {
		got, pushed := rc.exchange(goldenBytes(t, step.req))
		if want := goldenBytes(t, step.resp); !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", step.req, got, want)
		}
		if step.pushed == "" {
			continue
		}
		if len(pushed) == 0 { // the notification may follow the answer
			pushed = append(pushed, rc.readFrame())
		}
		if want := goldenBytes(t, step.pushed); !sameButOpaque(t, pushed[0], want) {
			t.Errorf("%s pushed:\n got %q\nwant %q", step.req, pushed[0], want)
		}
	}
}

// sameButOpaque compares two frames after giving the first the second's
// opaque (a broker-initiated request numbers its own opaques).
func sameButOpaque(t *testing.T, got, want []byte) bool {
	t.Helper()
	g, err := codec.Decode(got)
	if err != nil {
		t.Fatal(err)
	}
	w, err := codec.Decode(want)
	if err != nil {
		t.Fatal(err)
	}
	g.Opaque = w.Opaque
	enc, err := codec.Encode(g)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(enc, want)
}

// TestBrokerAdminGoldenSlaveSyncHeaders: the four tables a slave pulls from
// its master answer with Java's headers (bodies depend on the data and are
// covered by the managers' own golden tests).
func TestBrokerAdminGoldenSlaveSyncHeaders(t *testing.T) {
	if goldenBytes(t, "000006-slave2master-req-GET_ALL_TOPIC_CONFIG.bin") == nil {
		t.Skip("golden set absent")
	}
	b := testutil.StartBroker(t, "")
	rc := dialRaw(t, b.Addr().String())
	for _, step := range []struct{ req, resp string }{
		{"000006-slave2master-req-GET_ALL_TOPIC_CONFIG.bin", "000007-master2slave-resp-SUCCESS.bin"},
		{"000008-slave2master-req-GET_ALL_CONSUMER_OFFSET.bin", "000009-master2slave-resp-SUCCESS.bin"},
		{"000010-slave2master-req-GET_ALL_DELAY_OFFSET.bin", "000011-master2slave-resp-SUCCESS.bin"},
		{"000012-slave2master-req-GET_ALL_SUBSCRIPTIONGROUP_CONFIG.bin", "000013-master2slave-resp-SUCCESS.bin"},
	} {
		got, _ := rc.exchange(goldenBytes(t, step.req))
		g, err := codec.Decode(got)
		if err != nil {
			t.Fatal(err)
		}
		w, err := codec.Decode(goldenBytes(t, step.resp))
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Body) == 0 {
			t.Errorf("%s: empty body", step.req)
		}
		g.Body, w.Body = nil, nil
		ge, _ := codec.Encode(g)
		we, _ := codec.Encode(w)
		if !bytes.Equal(ge, we) {
			t.Errorf("%s header:\n got %q\nwant %q", step.req, ge, we)
		}
	}
}

// TestBrokerAdminGoldenResetOffset replays mqadmin resetOffsetByTime: the
// answer and the RESET_CONSUMER_CLIENT_OFFSET pushed to the consumer match
// the Java broker's frames.
func TestBrokerAdminGoldenResetOffset(t *testing.T) {
	hb := goldenBytes(t, "001024-client2broker-req-HEART_BEAT.bin")
	if hb == nil {
		t.Skip("golden set absent")
	}
	b := testutil.StartBroker(t, "")
	tc := body.NewTopicConfig("TopicTest")
	tc.ReadQueueNums, tc.WriteQueueNums = 4, 4
	b.Topics().UpdateTopicConfig(tc)
	for q := int32(0); q < 4; q++ {
		b.Offsets().CommitOffset("x", "cg_admin", "TopicTest", q, 0)
	}
	consumer := dialRaw(t, b.Addr().String())
	consumer.exchange(hb)
	admin := dialRaw(t, b.Addr().String())
	got, _ := admin.exchange(goldenBytes(t, "001360-client2broker-req-INVOKE_BROKER_TO_RESET_OFFSET.bin"))
	if want := goldenBytes(t, "001361-broker2client-resp-SUCCESS.bin"); !bytes.Equal(got, want) {
		t.Errorf("answer:\n got %q\nwant %q", got, want)
	}
	var pushed []byte
	for pushed == nil {
		f := consumer.readFrame()
		if cmd, err := codec.Decode(f); err == nil && cmd.Code == code.ResetConsumerClientOffset {
			pushed = f
		}
	}
	if want := goldenBytes(t, "001362-broker2client-oneway-RESET_CONSUMER_CLIENT_OFFSET.bin"); !sameButOpaque(t, pushed, want) {
		t.Errorf("pushed:\n got %q\nwant %q", pushed, want)
	}
}

// TestBrokerAdminGoldenQueryTopicConsumeByWho: the group set comes out in
// Java's HashSet order.
func TestBrokerAdminGoldenQueryTopicConsumeByWho(t *testing.T) {
	req := goldenBytes(t, "001404-client2broker-req-QUERY_TOPIC_CONSUME_BY_WHO.bin")
	if req == nil {
		t.Skip("golden set absent")
	}
	b := testutil.StartBroker(t, "")
	for _, g := range []string{"please_rename_unique_group_name_4", "cg_admin", "lite_group"} {
		b.Offsets().CommitOffset("x", g, "TopicTest", 0, 1)
	}
	got, _ := dialRaw(t, b.Addr().String()).exchange(req)
	if want := goldenBytes(t, "001405-broker2client-resp-SUCCESS.bin"); !bytes.Equal(got, want) {
		t.Errorf("answer:\n got %q\nwant %q", got, want)
	}
}
