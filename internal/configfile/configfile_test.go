package configfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func decodeJSONish(dst *string) func([]byte) error {
	return func(b []byte) error {
		if !bytes.HasPrefix(b, []byte("{")) || !bytes.HasSuffix(b, []byte("}")) {
			return errors.New("not an object")
		}
		*dst = string(b)
		return nil
	}
}

func TestConfigFilePersistKeepsBakAndNoTmp(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "topics.json")
	if err := Persist(path, []byte("{1}")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + ".bak"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("first persist must not create .bak: %v", err)
	}
	if err := Persist(path, []byte("{2}")); err != nil {
		t.Fatal(err)
	}
	cur, _ := os.ReadFile(path)
	bak, _ := os.ReadFile(path + ".bak")
	if string(cur) != "{2}" || string(bak) != "{1}" {
		t.Fatalf("cur %q bak %q", cur, bak)
	}
	if _, err := os.Stat(path + ".tmp"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf(".tmp left behind: %v", err)
	}
}

func TestConfigFileLoadSources(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.json")
	var got string
	if src, err := Load(path, decodeJSONish(&got)); err != nil || src != SourceNone {
		t.Fatalf("missing both: %v %v", src, err)
	}
	if err := os.WriteFile(path+".bak", []byte("{bak}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, main := range map[string][]byte{"missing": nil, "empty": {}, "corrupt": []byte("{trunc")} {
		_ = os.Remove(path)
		if main != nil {
			if err := os.WriteFile(path, main, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got = ""
		src, err := Load(path, decodeJSONish(&got))
		if err != nil || src != SourceBak || got != "{bak}" {
			t.Fatalf("%s main: src %v err %v got %q", name, src, err, got)
		}
	}
	if err := os.WriteFile(path, []byte("{main}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if src, err := Load(path, decodeJSONish(&got)); err != nil || src != SourceMain || got != "{main}" {
		t.Fatalf("main: %v %v %q", src, err, got)
	}
}

func TestConfigFileLoadBothCorrupt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.json")
	_ = os.WriteFile(path, []byte("x"), 0o644)
	_ = os.WriteFile(path+".bak", []byte("y"), 0o644)
	var got string
	if _, err := Load(path, decodeJSONish(&got)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("want ErrCorrupt, got %v", err)
	}
	// A corrupt main file with no backup starts empty, as in Java, but the
	// caller is told the file was discarded.
	_ = os.Remove(path + ".bak")
	if src, err := Load(path, decodeJSONish(&got)); err != nil || src != SourceDiscarded {
		t.Fatalf("corrupt main without bak: %v %v", src, err)
	}
}

// TestConfigFileCrashBetweenSteps simulates a crash after the temp file was
// written but before the rename: the main file is still the old complete
// version and loads.
func TestConfigFileCrashBetweenSteps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.json")
	if err := Persist(path, []byte("{old}")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+".tmp", []byte("{new-half"), 0o644); err != nil {
		t.Fatal(err)
	}
	var got string
	if src, err := Load(path, decodeJSONish(&got)); err != nil || src != SourceMain || got != "{old}" {
		t.Fatalf("%v %v %q", src, err, got)
	}
	if err := Persist(path, []byte("{newer}")); err != nil {
		t.Fatal(err)
	}
	if cur, _ := os.ReadFile(path); string(cur) != "{newer}" {
		t.Fatalf("stale tmp must be overwritten, got %q", cur)
	}
}

func TestConfigFilePretty(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"offsetTable":{"t@g":{0:5,1:4},"u@g":{0:1}}}`,
			"{\n\t\"offsetTable\":{\n\t\t\"t@g\":{0:5,1:4\n\t\t},\n\t\t\"u@g\":{0:1\n\t\t}\n\t}\n}"},
		{`{"offsetTable":{2:1,3:1}}`, "{\n\t\"offsetTable\":{2:1,3:1\n\t}\n}"},
		{`{"filterDataByTopic":{}}`, "{\n\t\"filterDataByTopic\":{}\n}"},
		{`{"offsetTable":{}}`, "{\n\t\"offsetTable\":{}\n}"},
		{`{"a":[1,2],"b":[],"c":"x,{y}"}`, "{\n\t\"a\":[\n\t\t1,\n\t\t2\n\t],\n\t\"b\":[],\n\t\"c\":\"x,{y}\"\n}"},
		{`{"s":"q\"}"}`, "{\n\t\"s\":\"q\\\"}\"\n}"},
	} {
		got, err := Pretty([]byte(c.in))
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if string(got) != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.in, got, c.want)
		}
	}
	for _, bad := range []string{`{"a":1`, `}`, `{"a":"x}`} {
		if _, err := Pretty([]byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// FuzzConfigFilePretty: Pretty never panics, and removing the whitespace it
// adds outside strings gives back the input.
func FuzzConfigFilePretty(f *testing.F) {
	for _, s := range []string{`{"a":{0:1,1:2}}`, `{"a":[1,{"b":"c,}"}]}`, `{}`, `{"s":"\"}"}`, `{"a":1`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if bytes.ContainsAny(in, "\n\t") {
			return
		}
		out, err := Pretty(in)
		if err != nil {
			return
		}
		if strip := strings.NewReplacer("\n", "", "\t", "").Replace(string(out)); strip != string(in) {
			t.Fatalf("Pretty changed content: %q -> %q", in, out)
		}
	})
}
