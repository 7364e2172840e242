package integration

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// replayStep is one line of testdata/alions/frames/replay.jsonl: a request
// ali-ons 3.12.0 sent to the Java 4.9.8 broker in the golden recording
// (clients/frames/node-json), on which connection, and the broker's answer.
type replayStep struct {
	File     string `json:"file"`
	Conn     string `json:"conn"`
	Role     string `json:"role"`
	Type     string `json:"type"`
	Code     int32  `json:"code"`
	Response *struct {
		File      string            `json:"file"`
		Code      int32             `json:"code"`
		Remark    *string           `json:"remark"`
		ExtFields map[string]string `json:"extFields"`
	} `json:"response"`
}

// TestIntegrationAliONSReplay sends the broker, byte for byte, every request
// ali-ons made in the recording (mqadmin's topic creation, the producer's
// five sends, the consumer's heartbeat, offset queries, pulls, offset
// commits and unregistration), each on its own connection as recorded, and
// compares our answers with Java's: codes, remarks and extFields (the send
// answers' queue offsets and commit-log offsets included), and the messages
// each pull returned. It needs no Node.js.
func TestIntegrationAliONSReplay(t *testing.T) {
	t.Parallel()
	replaySession(t, filepath.Join(alionsDir, "frames"))
}

// replaySession replays dir/replay.jsonl against a fresh name server and
// broker (opts adjust the broker).
func replaySession(t *testing.T, dir string, opts ...testutil.BrokerOption) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "replay.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ns := testutil.StartNamesrv(t)
	b := testutil.StartBroker(t, ns.Addr().String(), opts...)
	conns := map[string]*replayConn{}
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		var st replayStep
		if err := json.Unmarshal(sc.Bytes(), &st); err != nil {
			t.Fatal(err)
		}
		rc := conns[st.Conn]
		if rc == nil {
			rc = dialReplay(t, b.BrokerAddr())
			conns[st.Conn] = rc
		}
		frame, err := os.ReadFile(filepath.Join(dir, st.File))
		if err != nil {
			t.Fatal(err)
		}
		req, err := codec.Decode(frame)
		if err != nil {
			t.Fatalf("%s: %v", st.File, err)
		}
		// A send is answered once the CommitLog holds it; the consume queues
		// follow asynchronously (in Java too), and the recorded client
		// pulled after they had: a pull must not find a queue one short.
		testutil.Eventually(t, 10*time.Second, func() error {
			if n := b.Store().DispatchBehindBytes(); n > 0 {
				return fmt.Errorf("consume queues %d bytes behind the commit log", n)
			}
			return nil
		})
		if _, err := rc.c.Write(frame); err != nil {
			t.Fatal(err)
		}
		n++
		if st.Response == nil {
			continue // oneway, or a pull Java still held when the session ended
		}
		resp := rc.response(t, req.Opaque)
		checkReplayAnswer(t, dir, st, resp)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 25 {
		t.Fatalf("replayed only %d requests", n)
	}
}

func checkReplayAnswer(t *testing.T, dir string, st replayStep, resp *codec.RemotingCommand) {
	t.Helper()
	want := st.Response
	if resp.Code != want.Code {
		t.Errorf("%s: code %d remark %q, Java %d", st.File, resp.Code, resp.Remark, want.Code)
		return
	}
	wantRemark := ""
	if want.Remark != nil {
		wantRemark = *want.Remark
	}
	if resp.Remark != wantRemark {
		t.Errorf("%s: remark %q, Java %q", st.File, resp.Remark, wantRemark)
	}
	for k, v := range want.ExtFields {
		got, ok := resp.ExtFields[k]
		if k == "msgId" && ok && len(got) == len(v) {
			// store host differs (our broker's port); the commit-log offset must not
			got, v = got[len(got)-16:], v[len(v)-16:]
		}
		if !ok || got != v {
			t.Errorf("%s: extFields[%s] = %q (present %v), Java %q", st.File, k, got, ok, v)
		}
	}
	for k := range resp.ExtFields {
		if _, ok := want.ExtFields[k]; !ok {
			t.Errorf("%s: extra extFields[%s] = %q", st.File, k, resp.ExtFields[k])
		}
	}
	if st.Code != 11 { // PULL_MESSAGE
		return
	}
	javaFrame, err := os.ReadFile(filepath.Join(dir, filepath.Base(want.File)))
	if err != nil {
		t.Fatal(err)
	}
	javaResp, err := codec.Decode(javaFrame)
	if err != nil {
		t.Fatal(err)
	}
	wantMsgs, err := message.DecodeRecords(javaResp.Body, true)
	if err != nil {
		t.Fatal(err)
	}
	gotMsgs, err := message.DecodeRecords(resp.Body, true)
	if err != nil {
		t.Fatalf("%s: pull body: %v", st.File, err)
	}
	if len(gotMsgs) != len(wantMsgs) {
		t.Fatalf("%s: %d messages, Java %d", st.File, len(gotMsgs), len(wantMsgs))
	}
	for i, w := range wantMsgs {
		g := gotMsgs[i]
		if string(g.Body) != string(w.Body) || g.QueueID != w.QueueID || g.QueueOffset != w.QueueOffset ||
			g.CommitLogOffset != w.CommitLogOffset || g.PropertiesString != w.PropertiesString || g.Topic != w.Topic {
			t.Errorf("%s: message %d\n got %q q%d@%d phy %d props %q\nJava %q q%d@%d phy %d props %q", st.File, i,
				g.Body, g.QueueID, g.QueueOffset, g.CommitLogOffset, g.PropertiesString,
				w.Body, w.QueueID, w.QueueOffset, w.CommitLogOffset, w.PropertiesString)
		}
	}
}

// replayConn is one client connection of the replay; it reads frames until
// the answer to a given opaque, passing over the broker's own requests
// (NOTIFY_CONSUMER_IDS_CHANGED) and answers to held pulls.
type replayConn struct {
	c net.Conn
	r *bufio.Reader
}

func dialReplay(t *testing.T, addr string) *replayConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &replayConn{c: c, r: bufio.NewReader(c)}
}

func (rc *replayConn) response(t *testing.T, opaque int32) *codec.RemotingCommand {
	t.Helper()
	if err := rc.c.SetReadDeadline(time.Now().Add(15 * time.Second)); err != nil {
		t.Fatal(err)
	}
	for {
		var lb [4]byte
		if _, err := io.ReadFull(rc.r, lb[:]); err != nil {
			t.Fatalf("waiting for the answer to opaque %d: %v", opaque, err)
		}
		frame := make([]byte, 4+binary.BigEndian.Uint32(lb[:]))
		copy(frame, lb[:])
		if _, err := io.ReadFull(rc.r, frame[4:]); err != nil {
			t.Fatal(err)
		}
		cmd, err := codec.Decode(frame)
		if err != nil {
			t.Fatal(err)
		}
		if cmd.IsResponse() && cmd.Opaque == opaque {
			return cmd
		}
	}
}
