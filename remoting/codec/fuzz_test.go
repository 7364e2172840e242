package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fuzzSeeds returns the testdata frames plus damaged variants of them.
func fuzzSeeds(f testing.TB) [][]byte {
	files, _ := filepath.Glob(filepath.Join(testdataFrames, "*.bin"))
	clients, _ := filepath.Glob(filepath.Join("testdata", "clients", "*.bin")) // C++, ali-ons, ACL
	files = append(files, clients...)
	var seeds [][]byte
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		if len(b) > 4096 {
			continue // keep the corpus small; big bodies add nothing to header coverage
		}
		seeds = append(seeds, b, b[:len(b)/2], b[:9])
		bad := append([]byte{}, b...)
		binary.BigEndian.PutUint32(bad[4:], binary.BigEndian.Uint32(bad[4:])+7) // header longer than frame
		seeds = append(seeds, bad)
		huge := append([]byte{}, b...)
		binary.BigEndian.PutUint32(huge, 1<<30) // oversize
		seeds = append(seeds, huge)
	}
	seeds = append(seeds,
		jsonFrame(`{"code":105,"language":"GO","version":317,"opaque":1,"flag":0,"remark":"","extFields":{"topic":"TopicTest"}}`, ""),
		jsonFrame(` {"code":1,"x":[{"a":null}],"extFields":{"a":"\u00e9\ud83d\ude00"}} `, "b"),
		jsonFrame(`{"code":1,"extFields":{"a":1.5e-7,"b":{"y":[1,2.50,null,{}],"x":-0},"c":false,"d":null,"e":-007}}`, ""),
		manyKeysFrame(40), // past extIndexMin, with repeats
		[]byte{0, 0, 0, 4, 1, 0, 0, 0},
	)
	return seeds
}

// checkRoundTrip asserts the codec invariants for one whole frame.
func checkRoundTrip(t *testing.T, frame []byte) {
	c, err := Decode(frame)
	if err != nil {
		if !errors.Is(err, ErrBadFrame) && !errors.Is(err, ErrMalformedHeader) {
			t.Fatalf("decode error without a sentinel: %v", err)
		}
		return
	}
	out, err := Encode(c)
	if err != nil {
		t.Fatalf("decoded frame does not encode: %v", err)
	}
	if c.layout.exact {
		if !bytes.Equal(out, frame) {
			t.Fatalf("exact frame re-encoded differently\n got %q\nwant %q", out, frame)
		}
		return
	}
	d, err := Decode(out)
	if err != nil {
		t.Fatalf("canonical form does not decode: %v\n%q", err, out)
	}
	if !d.layout.exact {
		t.Fatalf("canonical form is not exact: %q", out)
	}
	if again, _ := Encode(d); !bytes.Equal(again, out) {
		t.Fatalf("canonical form is not a fixed point\n got %q\nwant %q", again, out)
	}
	if !sameCommand(c, d) {
		t.Fatalf("canonical form changed the command\n%+v\n%+v", c, d)
	}
}

func sameCommand(a, b *RemotingCommand) bool {
	if a.Code != b.Code || a.Language != b.Language || a.Version != b.Version || a.Opaque != b.Opaque ||
		a.Flag != b.Flag || a.Remark != b.Remark || !bytes.Equal(a.Body, b.Body) || len(a.ExtFields) != len(b.ExtFields) {
		return false
	}
	for k, v := range a.ExtFields {
		if w, ok := b.ExtFields[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func FuzzDecodeFrame(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkRoundTrip(t, data) // Decode must cope with any input, even a wrong length
		n, err := FrameLength(data, DefaultMaxFrameLength)
		if err != nil || n == 0 || n > len(data) {
			return
		}
		checkRoundTrip(t, data[:n])
	})
}

// streamFrames cuts frames out of chunks the way a connection reader does and
// returns them with the number of bytes consumed.
func streamFrames(t *testing.T, chunks ...[]byte) (frames [][]byte, consumed int, total int) {
	var buf []byte
	for _, ch := range chunks {
		total += len(ch)
		buf = append(buf, ch...)
		for {
			n, err := FrameLength(buf, DefaultMaxFrameLength)
			if err != nil {
				return frames, consumed, total // the connection would be closed
			}
			if n == 0 || n > len(buf) {
				break
			}
			frames = append(frames, append([]byte(nil), buf[:n]...))
			if _, err := Decode(buf[:n]); err != nil && !errors.Is(err, ErrBadFrame) && !errors.Is(err, ErrMalformedHeader) {
				t.Fatalf("decode error without a sentinel: %v", err)
			}
			buf = buf[n:]
			consumed += n
		}
	}
	return frames, consumed, total
}

func FuzzDecodeSplit(f *testing.F) {
	for i, s := range fuzzSeeds(f) {
		f.Add(append(append([]byte{}, s...), s...), uint(i*7))
	}
	f.Fuzz(func(t *testing.T, data []byte, split uint) {
		at := int(split % uint(len(data)+1))
		split2, consumed, total := streamFrames(t, data[:at], data[at:])
		whole, consumedWhole, _ := streamFrames(t, data)
		if consumed > total {
			t.Fatalf("consumed %d of %d bytes", consumed, total)
		}
		if consumed != consumedWhole || len(split2) != len(whole) {
			t.Fatalf("split at %d gave %d frames/%d bytes, whole gave %d/%d", at, len(split2), consumed, len(whole), consumedWhole)
		}
		for i := range whole {
			if !bytes.Equal(whole[i], split2[i]) {
				t.Fatalf("frame %d differs after split", i)
			}
			checkRoundTrip(t, whole[i])
		}
	})
}

// TestCodecRandomMutations runs the fuzz invariants over deterministic random
// byte edits of the seeds, so plain `go test` exercises them too.
func TestCodecRandomMutations(t *testing.T) {
	seeds := fuzzSeeds(t)
	r := rand.New(rand.NewSource(1))
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
		checkRoundTrip(t, s)
	}
}

// manyKeysFrame is a JSON header of n distinct keys followed by repeats of
// the first few: the same value, a new one, an escaped name, a number, null.
func manyKeysFrame(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"code":1,"extFields":{`)
	for i := range n {
		b.WriteString(`"k` + strconv.Itoa(i) + `":"v` + strconv.Itoa(i) + `",`)
	}
	b.WriteString(`"k0":"v0","k1":"x","k\u0032":"y","k3":3,"k4":null}}`)
	return jsonFrame(b.String(), "")
}
