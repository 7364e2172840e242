package codec

import (
	"bytes"
	"encoding/binary"
	"maps"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocketmq-go/rmq/remoting/code"
)

// checkLazy asserts that DecodeLazy and Decode read frame alike: the same
// error, the same command, the same custom header through Ext, RangeExt
// and Fields, and the same bytes when re-encoded before and after the map
// is built. It reports whether the header stayed lazy.
func checkLazy(t *testing.T, frame []byte) bool {
	t.Helper()
	want, werr := Decode(frame)
	got, gerr := DecodeLazy(frame)
	if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
		t.Fatalf("Decode error %v, DecodeLazy error %v", werr, gerr)
	}
	if werr != nil {
		return false
	}
	lazy := got.lazyExt()
	if lazy && (!lazyRequest(got) || got.ExtFields != nil) {
		t.Fatalf("lazy header on code %d flag %d", got.Code, got.Flag)
	}
	if !lazy && !sameCommand(got, want) {
		t.Fatalf("eager DecodeLazy differs\n got %+v\nwant %+v", got, want)
	}
	for k, v := range want.ExtFields {
		if g := got.Ext(k); g != v {
			t.Fatalf("Ext(%q) = %q, want %q", k, g, v)
		}
	}
	if got.Ext("\x00absent") != "" {
		t.Fatal("Ext of an absent key is not empty")
	}
	if seen := maps.Collect(got.RangeExt); len(seen) != len(want.ExtFields) || !maps.Equal(seen, want.ExtFields) {
		t.Fatalf("RangeExt %v, want %v", seen, want.ExtFields)
	}
	wantOut, werr := Encode(want)
	gotOut, gerr := Encode(got)
	if (werr == nil) != (gerr == nil) || !bytes.Equal(wantOut, gotOut) {
		t.Fatalf("lazy re-encode differs (%v, %v)\n got %q\nwant %q", gerr, werr, gotOut, wantOut)
	}
	if got.lazyExt() != lazy {
		t.Fatal("encoding changed the lazy state")
	}
	m := got.Fields()
	if got.lazyExt() || (want.ExtFields == nil) != (m == nil) || !maps.Equal(m, want.ExtFields) || !sameCommand(got, want) {
		t.Fatalf("Fields %v (lazy %v), want %v", m, got.lazyExt(), want.ExtFields)
	}
	if again, _ := Encode(got); !bytes.Equal(again, wantOut) {
		t.Fatalf("re-encode after Fields differs\n got %q\nwant %q", again, wantOut)
	}
	Release(got)
	if got.Code != PoisonCode || got.Body != nil || got.Ext("a") != "" || !maps.Equal(m, want.ExtFields) {
		t.Fatalf("released command %+v not poisoned, or its map %v changed", got, m)
	}
	return lazy
}

// lazySeeds are frames on the lazy path's edges: send codes with plain,
// repeated, null and non-string values, many keys, and responses carrying
// a send code's number (FLUSH_DISK_TIMEOUT is 10) with the flag after
// extFields as fastjson orders it.
func lazySeeds() [][]byte {
	plain := `"a":"g","b":"T\u0001x","c":"TBW102","d":"4","e":"0","f":"0","g":"1","h":"0","i":"K\u0001v"`
	seeds := [][]byte{
		jsonFrame(`{"code":310,"extFields":{`+plain+`},"flag":0,"language":"JAVA","opaque":1,"serializeTypeCurrentRPC":"JSON","version":409}`, "body"),
		jsonFrame(`{"code":310,"extFields":{`+plain+`,"a":"g"},"flag":0}`, ""),
		jsonFrame(`{"code":310,"extFields":{`+plain+`,"a":"other"},"flag":0}`, ""),
		jsonFrame(`{"code":10,"extFields":{"x":1,"y":"2","z":null,"w":{"q":[1]}},"flag":0}`, ""),
		jsonFrame(`{"code":320,"extFields":{},"flag":0}`, ""),
		jsonFrame(`{"code":10,"extFields":{"msgId":"m","queueId":"1"},"flag":1}`, ""),
		jsonFrame(`{"flag":1,"extFields":{"msgId":"m"},"code":10}`, ""),
		jsonFrame(`{"extFields":{"b":"x"},"code":11}`, ""),
		jsonFrame(`{"code":310,"extFields":{"k\u0032":"v\n","k2":"w"}}`, ""),
		jsonFrame(`{"code":310,"extFields":null}`, ""),
		jsonFrame(`{"code":310,"extFields":{"a":"1" , "b" : "2"}}`, ""),
	}
	many := strings.Replace(string(manyKeysFrame(40)[8:]), `"code":1`, `"code":310`, 1)
	seeds = append(seeds, jsonFrame(many, ""))
	for _, ext := range []map[string]string{
		{"a": "g", "b": "T", "i": "K\x01v\x02"},
		{"producerGroup": "g", "topic": "T", "queueId": "3"},
	} {
		c := NewRequest(code.SendMessageV2, ext, []byte("body"))
		c.SerializeType = RocketMQ
		f, _ := Encode(c)
		seeds = append(seeds, f)
	}
	seeds = append(seeds,
		binaryFrame(310, 0, [][2]string{{"a", "x"}, {"b", ""}, {"c", "y"}}),
		binaryFrame(310, 0, [][2]string{{"a", "x"}, {"b", "z"}, {"a", "x"}}),
		binaryFrame(310, 0, [][2]string{{"a", "x"}, {"a", "w"}}),
		binaryFrame(10, FlagResponse, [][2]string{{"msgId", "m"}}),
		binaryFrame(320, 0, nil),
	)
	return seeds
}

// binaryFrame is a ROCKETMQ request or response with the given ext entries
// in order (repeats and empty values as written).
func binaryFrame(c int32, flag int32, ext [][2]string) []byte {
	h := binary.BigEndian.AppendUint16(nil, uint16(c))
	h = append(h, byte(code.Java))
	h = binary.BigEndian.AppendUint16(h, uint16(code.CurrentVersion))
	h = binary.BigEndian.AppendUint32(h, 7)
	h = binary.BigEndian.AppendUint32(h, uint32(flag))
	h = binary.BigEndian.AppendUint32(h, 0)
	var e []byte
	for _, kv := range ext {
		e = binary.BigEndian.AppendUint16(e, uint16(len(kv[0])))
		e = append(e, kv[0]...)
		e = binary.BigEndian.AppendUint32(e, uint32(len(kv[1])))
		e = append(e, kv[1]...)
	}
	h = binary.BigEndian.AppendUint32(h, uint32(len(e)))
	h = append(h, e...)
	f := binary.BigEndian.AppendUint32(nil, uint32(4+len(h)))
	f = binary.BigEndian.AppendUint32(f, uint32(RocketMQ)<<24|uint32(len(h)))
	return append(f, h...)
}

// TestCodecDecodeLazyGolden: on every recorded frame DecodeLazy reads what
// Decode reads, and the Java client's plain send requests (JSON and
// ROCKETMQ) stay lazy, so the send path builds no map for them. (Sends
// with repeated keys or numbers, from an RPC hook or the C++ and Node
// clients, get the map.)
func TestCodecDecodeLazyGolden(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testdataFrames, "*.bin"))
	clients, _ := filepath.Glob(filepath.Join("testdata", "clients", "*.bin"))
	mustLazy := map[string]bool{
		"json-000042-client2broker-req-SEND_MESSAGE_V2.bin":            true,
		"rocketmq-client-000034-client2broker-req-SEND_MESSAGE_V2.bin": true,
		"json-000107-client2broker-req-PULL_MESSAGE.bin":               true,
		"rocketmq-client-000096-client2broker-req-PULL_MESSAGE.bin":    true,
	}
	for _, name := range append(files, clients...) {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		lazy := checkLazy(t, b)
		if base := filepath.Base(name); mustLazy[base] {
			if !lazy {
				t.Errorf("%s: send request not decoded lazily", base)
			}
			delete(mustLazy, base)
		}
	}
	if len(mustLazy) > 0 {
		t.Fatalf("recorded frames missing: %v", mustLazy)
	}
}

// TestCodecDecodeLazyEdges runs the lazy seeds and checks which stay lazy.
func TestCodecDecodeLazyEdges(t *testing.T) {
	wantLazy := []bool{true, false, false, false, true, false, false, true, false, false, true, false,
		true, true, false, false, false, false, false}
	for i, s := range lazySeeds() {
		if got := checkLazy(t, s); got != wantLazy[i] {
			t.Errorf("seed %d: lazy %v, want %v", i, got, wantLazy[i])
		}
	}
}

// TestCodecLazySetExt: setting a field of a lazy request keeps the others.
func TestCodecLazySetExt(t *testing.T) {
	c, err := DecodeLazy(lazySeeds()[0])
	if err != nil || !c.lazyExt() {
		t.Fatalf("seed not lazy: %v", err)
	}
	c.SetExt("z", "1")
	if c.Ext("a") != "g" || c.Ext("z") != "1" || len(c.ExtFields) != 10 {
		t.Fatalf("after SetExt: %v", c.ExtFields)
	}
}

func FuzzDecodeLazy(f *testing.F) {
	for _, s := range append(fuzzSeeds(f), lazySeeds()...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkLazy(t, data) })
}

// TestCodecLazyRandomMutations is FuzzDecodeLazy over deterministic random
// edits of the seeds, for plain `go test`.
func TestCodecLazyRandomMutations(t *testing.T) {
	seeds := append(fuzzSeeds(t), lazySeeds()...)
	r := rand.New(rand.NewSource(2))
	for range 20000 {
		s := append([]byte{}, seeds[r.Intn(len(seeds))]...)
		for range 1 + r.Intn(4) {
			if len(s) == 0 {
				break
			}
			i := r.Intn(len(s))
			switch r.Intn(3) {
			case 0:
				s[i] = byte(r.Intn(256))
			case 1:
				s = append(s[:i], s[i+1:]...)
			default:
				s = append(s[:i], append([]byte{byte(r.Intn(256))}, s[i:]...)...)
			}
		}
		checkLazy(t, s)
	}
}
