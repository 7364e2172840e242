//go:build !race

package codec

import (
	"encoding/binary"
	"strconv"
	"strings"
	"testing"
	"time"
)

// manyKeysHeaders returns headers of n distinct extFields keys, each sent
// twice: as JSON strings, as JSON numbers, and as ROCKETMQ entries whose
// repeat is null (zero length).
func manyKeysHeaders(n int) map[string][]byte {
	var str, num strings.Builder
	str.WriteString(`{"code":1,"extFields":{`)
	num.WriteString(`{"code":1,"extFields":{`)
	var ext []byte
	for round := range 2 {
		for i := range n {
			if round+i > 0 {
				str.WriteByte(',')
				num.WriteByte(',')
			}
			k := "k" + strconv.Itoa(i)
			str.WriteString(`"` + k + `":"v"`)
			num.WriteString(`"` + k + `":1`)
			ext = binary.BigEndian.AppendUint16(ext, uint16(len(k)))
			ext = append(ext, k...)
			if round == 0 {
				ext = binary.BigEndian.AppendUint32(ext, 1)
				ext = append(ext, 'v')
			} else {
				ext = binary.BigEndian.AppendUint32(ext, 0)
			}
		}
	}
	str.WriteString(`}}`)
	num.WriteString(`}}`)
	bin := []byte{0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	bin = binary.BigEndian.AppendUint32(bin, uint32(len(ext)))
	bin = append(bin, ext...)
	frame := binary.BigEndian.AppendUint32(nil, uint32(4+len(bin)))
	frame = binary.BigEndian.AppendUint32(frame, 1<<24|uint32(len(bin)))
	return map[string][]byte{
		"json strings": jsonFrame(str.String(), ""),
		"json numbers": jsonFrame(num.String(), ""),
		"rocketmq":     append(frame, bin...),
	}
}

// TestNoRaceCodecManyKeysLinear decodes and re-encodes headers of 100,000
// keys, each repeated, well within a second: a frame of repeated keys must
// not cost quadratic time, since decoding runs on the connection's event
// loop (a scan per key took minutes at this size).
func TestNoRaceCodecManyKeysLinear(t *testing.T) {
	for name, frame := range manyKeysHeaders(100_000) {
		start := time.Now()
		c, err := Decode(frame)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := Encode(c); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// Linear takes well under a second and quadratic minutes; the bound
		// leaves room for a CI machine loaded past 25 (2.45 s seen there).
		if took := time.Since(start); took > 10*time.Second {
			t.Errorf("%s: decode and encode of %d bytes took %v", name, len(frame), took)
		}
	}
}
