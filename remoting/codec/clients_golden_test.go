package codec

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// clientsGoldenDir is the "clients" recording of the shared golden set:
// $RMQ_GOLDEN_DIR/clients, else ../shared/golden/clients next to the
// repository root.
func clientsGoldenDir(t *testing.T) string {
	t.Helper()
	base := os.Getenv("RMQ_GOLDEN_DIR")
	if base == "" {
		base = filepath.Join("..", "..", "..", "shared", "golden")
	}
	dir := filepath.Join(base, "clients", "frames")
	if _, err := os.Stat(filepath.Join(dir, "headers.jsonl")); err != nil {
		t.Skipf("clients golden set not found (%v): set RMQ_GOLDEN_DIR", err)
	}
	return dir
}

// goldenHeaderLine is the part of one headers.jsonl line this test reads.
type goldenHeaderLine struct {
	File          string `json:"file"`
	SerializeType string `json:"serializeType"`
	Header        struct {
		Code      int32             `json:"code"`
		Opaque    int32             `json:"opaque"`
		ExtFields map[string]string `json:"extFields"`
	} `json:"header"`
	NotString map[string]json.RawMessage `json:"extFieldsNotString"`
}

// TestCodecClientsGoldenExtFields decodes every frame the C++ client, ali-ons
// and the ACL sessions exchanged with Java 4.9.8 and compares extFields with
// what the Java broker saw: fastjson's HashMap<String,String>, where a JSON
// number or boolean value becomes its text. testdata/clients holds one
// request of each code per client (always checked); the whole recording is
// checked when the shared golden set is present.
func TestCodecClientsGoldenExtFields(t *testing.T) {
	t.Run("testdata", func(t *testing.T) {
		n, typed := checkClientFrames(t, filepath.Join("testdata", "clients"), "headers.jsonl")
		if n < 30 || typed < 8 {
			t.Fatalf("checked %d frames, %d with typed extFields", n, typed)
		}
	})
	t.Run("shared", func(t *testing.T) {
		dir := clientsGoldenDir(t)
		n, typed := checkClientFrames(t, filepath.Join(dir, ".."), filepath.Join("frames", "headers.jsonl"))
		if n < 800 || typed < 60 {
			t.Fatalf("checked %d frames, %d with typed extFields: the set looks incomplete", n, typed)
		}
	})
}

// checkClientFrames checks each frame listed in the headers.jsonl at
// dir/list (file names relative to dir) and counts the frames and those
// with typed extFields values.
func checkClientFrames(t *testing.T, dir, list string) (n, typed int) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, list))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var g goldenHeaderLine
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		frame, err := os.ReadFile(filepath.Join(dir, g.File))
		if err != nil {
			t.Fatal(err)
		}
		n++
		if len(g.NotString) > 0 {
			typed++
		}
		checkClientFrame(t, g, frame)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return n, typed
}

func checkClientFrame(t *testing.T, g goldenHeaderLine, frame []byte) {
	t.Helper()
	c, err := Decode(frame)
	if err != nil {
		t.Errorf("%s: %v", g.File, err)
		return
	}
	if c.SerializeType.String() != g.SerializeType || c.Code != g.Header.Code || c.Opaque != g.Header.Opaque {
		t.Errorf("%s: decoded %s code %d opaque %d", g.File, c.SerializeType, c.Code, c.Opaque)
	}
	if len(c.ExtFields) != len(g.Header.ExtFields) {
		t.Errorf("%s: %d extFields, Java saw %d: %q", g.File, len(c.ExtFields), len(g.Header.ExtFields), c.ExtFields)
	}
	for k, want := range g.Header.ExtFields {
		if got, ok := c.ExtFields[k]; !ok || got != want {
			t.Errorf("%s: extFields[%q] = %q (present %v), Java saw %q", g.File, k, got, ok, want)
		}
	}
	// a re-encoded header keeps the values Java saw
	out, err := Encode(c)
	if err != nil {
		t.Errorf("%s: encode: %v", g.File, err)
		return
	}
	d, err := Decode(out)
	if err != nil {
		t.Errorf("%s: re-decode: %v", g.File, err)
		return
	}
	for k, want := range g.Header.ExtFields {
		if got := d.ExtFields[k]; got != want {
			t.Errorf("%s: after re-encode extFields[%q] = %q, Java saw %q", g.File, k, got, want)
		}
	}
}

// TestCodecDecodeAllocsClients keeps typed extFields values (the C++ and
// ali-ons numbers and booleans) as cheap as strings: a recorded send
// request of each decodes with the same allocations as a Java one.
func TestCodecDecodeAllocsClients(t *testing.T) {
	for _, name := range []string{
		"node-json-000011-client2broker-req-SEND_MESSAGE_V2.bin",
		"cpp-json-000007-client2broker-req-SEND_MESSAGE_V2.bin",
		"node-json-000036-client2broker-req-PULL_MESSAGE.bin",
	} {
		frame, err := os.ReadFile(filepath.Join("testdata", "clients", name))
		if err != nil {
			t.Fatal(err)
		}
		n := testing.AllocsPerRun(50, func() {
			if _, err := Decode(frame); err != nil {
				t.Fatal(err)
			}
		})
		if n > 6 {
			t.Errorf("%s: %.0f allocations per decode, want at most 6", name, n)
		}
	}
}

// BenchmarkCodecDecodeAliONS decodes ali-ons's SEND_MESSAGE_V2 header, whose
// extFields values are JSON numbers and booleans.
func BenchmarkCodecDecodeAliONS(b *testing.B) {
	frame, err := os.ReadFile(filepath.Join("testdata", "clients", "node-json-000011-client2broker-req-SEND_MESSAGE_V2.bin"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		if _, err := Decode(frame); err != nil {
			b.Fatal(err)
		}
	}
}
