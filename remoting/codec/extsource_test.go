package codec

import (
	"bytes"
	"maps"
	"strconv"
	"testing"

	"github.com/rocketmq-go/rmq/remoting/code"
)

// answerSource is a send answer's header as an ExtSource.
type answerSource struct {
	region, msgID string
	queueID       int32
	offset        int64
	trace         bool
}

var answerOrder = HashMapOrder("MSG_REGION", "TRACE_ON", "msgId", "queueId", "queueOffset")

func (a *answerSource) ExtEntry(i int) (ExtEntry, bool) {
	if i >= len(answerOrder) {
		return ExtEntry{}, false
	}
	switch k := answerOrder[i]; k {
	case "MSG_REGION":
		return ExtEntry{Key: k, Value: a.region}, true
	case "TRACE_ON":
		return ExtEntry{Key: k, Value: strconv.FormatBool(a.trace)}, true
	case "msgId":
		return ExtEntry{Key: k, Value: a.msgID}, true
	case "queueId":
		return ExtEntry{Key: k, Num: int64(a.queueID), IsNum: true}, true
	default:
		return ExtEntry{Key: k, Num: a.offset, IsNum: true}, true
	}
}

func (a *answerSource) asMap() map[string]string {
	return map[string]string{"MSG_REGION": a.region, "TRACE_ON": strconv.FormatBool(a.trace), "msgId": a.msgID,
		"queueId": strconv.Itoa(int(a.queueID)), "queueOffset": strconv.FormatInt(a.offset, 10)}
}

// TestCodecExtSourceMatchesMap: a command whose header is an ExtSource
// encodes to the bytes of the same header as a map, in both
// serializations, and reads back through Ext and Fields as that map.
func TestCodecExtSourceMatchesMap(t *testing.T) {
	for _, a := range []*answerSource{
		{region: "DefaultRegion", msgID: "7F00000100002A9F0000000000000000", queueID: 3, offset: 1 << 40, trace: true},
		{region: "r\x01\"é\u2028<", msgID: "a,b", queueID: -1, offset: -5},
		{},
	} {
		for _, st := range []SerializeType{JSON, RocketMQ} {
			viaMap := NewResponse(code.Success, "")
			viaMap.ExtFields, viaMap.SerializeType, viaMap.Opaque = a.asMap(), st, 9
			viaSrc := NewResponse(code.Success, "")
			viaSrc.ExtSource, viaSrc.SerializeType, viaSrc.Opaque = a, st, 9
			want, got := mustEncode(t, viaMap), mustEncode(t, viaSrc)
			if !bytes.Equal(got, want) {
				t.Fatalf("%v: ExtSource frame\n got %q\nwant %q", st, got, want)
			}
			if viaSrc.Ext("msgId") != a.msgID || viaSrc.ExtFields != nil {
				t.Fatalf("Ext(msgId) = %q or built the map", viaSrc.Ext("msgId"))
			}
			if m := viaSrc.Fields(); !maps.Equal(m, a.asMap()) {
				t.Fatalf("Fields %v, want %v", m, a.asMap())
			}
			if again := mustEncode(t, viaSrc); !bytes.Equal(again, want) {
				t.Fatalf("%v: frame after Fields differs", st)
			}
		}
	}
}

// TestCodecExtSourceNoAllocs: encoding an ExtSource header into a reused
// buffer allocates nothing, numbers included.
func TestCodecExtSourceNoAllocs(t *testing.T) {
	a := &answerSource{region: "DefaultRegion", msgID: "7F00000100002A9F0000000000000000", queueID: 3, offset: 123456789}
	for _, st := range []SerializeType{JSON, RocketMQ} {
		c := NewResponse(code.Success, "")
		c.ExtSource, c.SerializeType = a, st
		buf := make([]byte, 0, 512)
		if n := testing.AllocsPerRun(100, func() { buf, _ = AppendFrame(buf[:0], c) }); n != 0 {
			t.Errorf("%v: %.1f allocations per encode", st, n)
		}
	}
}
