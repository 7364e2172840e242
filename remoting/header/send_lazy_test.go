package header

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// DecodeSendRequest is DecodeSendRequestInto returning the header as
// DecodeSendMessageRequestHeader does (nil for a code with no send
// header); it reads a lazily decoded request without building its
// map: the same header, the same errors.
func DecodeSendRequest(req *codec.RemotingCommand) (*SendMessageRequestHeader, error) {
	h := new(SendMessageRequestHeader)
	if ok, err := DecodeSendRequestInto(h, req); !ok || err != nil {
		return nil, err
	}
	return h, nil
}

// checkSendRequest asserts that DecodeSendRequest on DecodeLazy's command
// gives what DecodeSendMessageRequestHeader gives on Decode's map, error
// included, and reports whether it did so without building the map.
func checkSendRequest(t *testing.T, frame []byte) (decoded, lazy bool) {
	t.Helper()
	eager, err := codec.Decode(frame)
	if err != nil {
		return false, false
	}
	lz, err := codec.DecodeLazy(frame)
	if err != nil {
		t.Fatalf("DecodeLazy: %v, Decode did not fail", err)
	}
	if eager.Code == code.PullMessage {
		return checkPullRequest(t, eager, lz)
	}
	want, werr := DecodeSendMessageRequestHeader(eager.Code, eager.ExtFields)
	got, gerr := DecodeSendRequest(lz)
	if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
		t.Fatalf("code %d: error %v, map path %v", eager.Code, gerr, werr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("code %d: header\n%+v\nmap path\n%+v", eager.Code, got, want)
	}
	return want != nil, lz.ExtFields == nil && len(eager.ExtFields) > 0
}

// checkPullRequest is checkSendRequest for PULL_MESSAGE.
func checkPullRequest(t *testing.T, eager, lz *codec.RemotingCommand) (decoded, lazy bool) {
	t.Helper()
	var want, got PullMessageRequestHeader
	werr := want.FromExtFields(eager.ExtFields)
	gerr := DecodePullRequestInto(&got, lz)
	if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
		t.Fatalf("pull: error %v, map path %v", gerr, werr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("pull: header\n%+v\nmap path\n%+v", got, want)
	}
	return werr == nil, lz.ExtFields == nil && len(eager.ExtFields) > 0
}

func sendFrame(t testing.TB, c int32, st codec.SerializeType, ext map[string]string) []byte {
	cmd := codec.NewRequest(c, ext, []byte("body"))
	cmd.SerializeType = st
	f, err := codec.Encode(cmd)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// sendLazySeeds are send requests in both serializations: complete V1 and
// V2 headers, one without a required key, bad numbers, unknown keys.
func sendLazySeeds(t testing.TB) [][]byte {
	v2 := (&SendMessageRequestHeaderV2{ProducerGroup: "pg", Topic: "T", DefaultTopic: "TBW102", DefaultTopicQueueNums: 4,
		QueueID: 1, BornTimestamp: 1795966620586, Properties: "WAIT\x01true\x02", ReconsumeTimes: Int32(2),
		MaxReconsumeTimes: Int32(16), Batch: true, BrokerName: "b"}).ToExtFields()
	v1 := CreateSendMessageRequestHeaderV1(&SendMessageRequestHeaderV2{ProducerGroup: "pg", Topic: "T",
		DefaultTopic: "TBW102", QueueID: 3, UnitMode: true, MaxReconsumeTimes: Int32(3)}).ToExtFields()
	missing := map[string]string{"a": "pg", "b": "T", "d": "4"}
	bad := map[string]string{"a": "pg", "b": "T", "c": "x", "d": "4", "e": "1", "f": "0", "g": "1", "h": "0", "j": "x", "l": "9999999999"}
	unknown := map[string]string{"producerGroup": "pg", "topic": "T", "defaultTopic": "x", "defaultTopicQueueNums": "4",
		"queueId": "1", "sysFlag": "0", "bornTimestamp": "1", "flag": "0", "maxReconsumeTimes": "-1",
		"batch": "TRUE", "AccessKey": "k", "z": "1"}
	pull := (&PullMessageRequestHeader{ConsumerGroup: "g", Topic: "T", QueueID: 2, QueueOffset: 1 << 40, MaxMsgNums: 32,
		SysFlag: 7, CommitOffset: -1, SuspendTimeoutMillis: 15000, Subscription: "*", SubVersion: 5, ExpressionType: "TAG",
		MaxMsgBytes: Int32(9), RequestSource: Int32(-1), ProxyFrowardClientID: "c", Bname: "b"}).ToExtFields()
	pullBad := map[string]string{"consumerGroup": "g", "topic": "T", "queueId": "1", "queueOffset": "x"}
	var seeds [][]byte
	for _, st := range []codec.SerializeType{codec.JSON, codec.RocketMQ} {
		for _, ext := range []map[string]string{pull, pullBad, v1, unknown} {
			seeds = append(seeds, sendFrame(t, code.PullMessage, st, ext))
		}
		for _, c := range []int32{code.SendMessage, code.SendMessageV2, code.SendBatchMessage} {
			for _, ext := range []map[string]string{v2, v1, missing, bad, unknown} {
				seeds = append(seeds, sendFrame(t, c, st, ext))
			}
		}
	}
	return seeds
}

// TestHeaderDecodeSendRequestMatchesMap: the slot reader and the map
// reader agree on constructed and recorded send requests, and the plain
// ones are read without building the map.
func TestHeaderDecodeSendRequestMatchesMap(t *testing.T) {
	lazyOK := 0
	for _, f := range sendLazySeeds(t) {
		if decoded, lazy := checkSendRequest(t, f); decoded && lazy {
			lazyOK++
		}
	}
	if lazyOK < 8 {
		t.Errorf("%d constructed sends decoded without a map, want at least 8", lazyOK)
	}
	var files []string
	for _, dir := range []string{"../../compat/testdata/frames", "../codec/testdata/clients"} {
		for _, pat := range []string{"*SEND*.bin", "*req-PULL_MESSAGE.bin"} {
			m, _ := filepath.Glob(filepath.Join(dir, pat))
			files = append(files, m...)
		}
	}
	if len(files) < 4 {
		t.Fatalf("%d recorded send frames", len(files))
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		decoded, lazy := checkSendRequest(t, b)
		if (strings.Contains(name, "json-000042-client2broker-req-SEND_MESSAGE_V2") ||
			strings.Contains(name, "json-000107-client2broker-req-PULL_MESSAGE")) && !(decoded && lazy) {
			t.Errorf("%s: decoded %v without a map %v", filepath.Base(name), decoded, lazy)
		}
	}
}

// FuzzDecodeSendRequest: for any frame, and for any extFields (alternating
// key/value lines) sent with a send code, the slot reader agrees with the
// map reader.
func FuzzDecodeSendRequest(f *testing.F) {
	for _, s := range sendLazySeeds(f) {
		f.Add(s, "")
	}
	f.Add([]byte(nil), "a\npg\nb\nT\nc\nTBW102\nd\n4\ne\n-1\nf\n0\ng\n1\nh\n0\nk\nTRUE\nl\n+3")
	f.Add([]byte(nil), "producerGroup\npg\ntopic\nT\ndefaultTopic\nx\ndefaultTopicQueueNums\n04\nqueueId\n1\nsysFlag\n0\nbornTimestamp\n1\nflag\n0")
	f.Fuzz(func(t *testing.T, frame []byte, lines string) {
		checkSendRequest(t, frame)
		parts := strings.Split(lines, "\n")
		ext := map[string]string{}
		for i := 0; i+1 < len(parts); i += 2 {
			ext[parts[i]] = parts[i+1]
		}
		for _, st := range []codec.SerializeType{codec.JSON, codec.RocketMQ} {
			for _, c := range []int32{code.SendMessage, code.SendMessageV2, code.PullMessage} {
				cmd := codec.NewRequest(c, ext, nil)
				cmd.SerializeType = st
				if f, err := codec.Encode(cmd); err == nil {
					checkSendRequest(t, f)
				}
			}
		}
	})
}

// TestHeaderDecodeSendRequestNoAllocs: reading a lazily decoded send
// header into the caller's struct allocates nothing (no map, no closure,
// no slots on the heap; only the optional Integer fields, absent here,
// cost their box); a code without a send header is refused.
func TestHeaderDecodeSendRequestNoAllocs(t *testing.T) {
	v2 := (&SendMessageRequestHeaderV2{ProducerGroup: "pg", Topic: "T", DefaultTopic: "TBW102", DefaultTopicQueueNums: 4,
		QueueID: 1, BornTimestamp: 1795966620586, Properties: "WAIT\x01true\x02", BrokerName: "b"}).ToExtFields()
	for _, st := range []codec.SerializeType{codec.JSON, codec.RocketMQ} {
		req, err := codec.DecodeLazy(sendFrame(t, code.SendMessageV2, st, v2))
		if err != nil || req.ExtFields != nil {
			t.Fatalf("%v: not a lazy send: %v", st, err)
		}
		var h SendMessageRequestHeader
		n := testing.AllocsPerRun(100, func() {
			if ok, err := DecodeSendRequestInto(&h, req); !ok || err != nil {
				t.Fatal(ok, err)
			}
		})
		if n != 0 || h.Topic != "T" || req.ExtFields != nil {
			t.Fatalf("%.1f allocations, topic %q, map built %v", n, h.Topic, req.ExtFields != nil)
		}
	}
	if ok, err := DecodeSendRequestInto(new(SendMessageRequestHeader), codec.NewRequest(code.PullMessage, nil, nil)); ok || err != nil {
		t.Fatalf("pull request read as a send: %v %v", ok, err)
	}
}
