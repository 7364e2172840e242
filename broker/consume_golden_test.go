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

	"github.com/rocketmq-go/rmq/remoting/body"
)

// consumeGoldenFrame reads one frame recorded from Apache RocketMQ 4.9.8
// (/work/shared/golden, or RMQ_GOLDEN_DIR), or skips.
func consumeGoldenFrame(t *testing.T, rel string) []byte {
	t.Helper()
	dir := os.Getenv("RMQ_GOLDEN_DIR")
	if dir == "" {
		wd, _ := os.Getwd()
		for d := wd; d != filepath.Dir(d); d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
				dir = filepath.Join(filepath.Dir(d), "shared", "golden")
				break
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "frames", rel))
	if err != nil {
		t.Skipf("golden frame absent: %v", err)
	}
	return b
}

// consumeRawExchange writes one frame on a fresh connection and reads one back.
func consumeRawExchange(t *testing.T, addr string, frame []byte) []byte {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Write(frame); err != nil {
		t.Fatal(err)
	}
	var l [4]byte
	if _, err := io.ReadFull(conn, l[:]); err != nil {
		t.Fatal(err)
	}
	out := make([]byte, 4+binary.BigEndian.Uint32(l[:]))
	copy(out, l[:])
	if _, err := io.ReadFull(conn, out[4:]); err != nil {
		t.Fatal(err)
	}
	return out
}

// consumeFrameHeader is the header part of a frame (after the 8-byte prefix).
func consumeFrameHeader(f []byte) []byte {
	hl := binary.BigEndian.Uint32(f[4:8]) & 0xFFFFFF
	return f[8 : 8+hl]
}

func TestConsumerManageGoldenConsumerListAnswer(t *testing.T) {
	req := consumeGoldenFrame(t, "json/000090-client2broker-req-GET_CONSUMER_LIST_BY_GROUP.bin")
	want := consumeGoldenFrame(t, "json/000091-broker2client-resp-SUCCESS.bin")
	e := newConsumeEnv(t)
	info := fakeConsumer(1, "192.0.2.2@25083#2748614352335")
	e.b.Consumers().RegisterConsumer("please_rename_unique_group_name_4", info, "CONSUME_PASSIVELY", "CLUSTERING",
		"CONSUME_FROM_FIRST_OFFSET", []body.SubscriptionData{{Topic: "TopicTest", SubString: "*", ExpressionType: "TAG"}}, false)
	if got := consumeRawExchange(t, e.addr, req); !bytes.Equal(got, want) {
		t.Fatalf("answer differs from Java's:\n got %q\nwant %q", got, want)
	}
}

func TestBrokerPullGoldenFoundHeader(t *testing.T) {
	req := consumeGoldenFrame(t, "json/000109-client2broker-req-PULL_MESSAGE.bin")
	want := consumeGoldenFrame(t, "json/000113-broker2client-resp-SUCCESS.bin")
	e := newConsumeEnv(t)
	e.send("TopicTest", 1, map[string]string{"TAGS": "TagA"}, "Hello RocketMQ 1")
	e.send("TopicTest", 1, map[string]string{"TAGS": "TagA"}, "Hello RocketMQ 2")
	e.waitDispatched("TopicTest", 1, 2)
	info := fakeConsumer(1, "192.0.2.2@25083#2748614352335")
	sub := body.SubscriptionData{Topic: "TopicTest", SubString: "*", ExpressionType: "TAG", SubVersion: 1795968527931}
	e.b.Consumers().RegisterConsumer("please_rename_unique_group_name_4", info, "CONSUME_PASSIVELY", "CLUSTERING",
		"CONSUME_FROM_FIRST_OFFSET", []body.SubscriptionData{sub}, false)
	got := consumeRawExchange(t, e.addr, req)
	if !bytes.Equal(consumeFrameHeader(got), consumeFrameHeader(want)) {
		t.Fatalf("pull answer header differs from Java's:\n got %s\nwant %s", consumeFrameHeader(got), consumeFrameHeader(want))
	}
	ms := decodeBody(t, got[8+len(consumeFrameHeader(got)):])
	if bodies(ms) != "Hello RocketMQ 1,Hello RocketMQ 2" {
		t.Fatalf("body %q", bodies(ms))
	}
}

func TestConsumerManageGoldenQueryOffsetAnswer(t *testing.T) {
	req := consumeGoldenFrame(t, "json/000094-client2broker-req-QUERY_CONSUMER_OFFSET.bin")
	want := consumeGoldenFrame(t, "json/000098-broker2client-resp-SUCCESS.bin")
	e := newConsumeEnv(t)
	e.send("TopicTest", 3, nil, "in memory")
	e.waitDispatched("TopicTest", 3, 1)
	if got := consumeRawExchange(t, e.addr, req); !bytes.Equal(got, want) {
		t.Fatalf("answer differs from Java's:\n got %q\nwant %q", got, want)
	}
}
