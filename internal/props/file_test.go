package props

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestPropsLoadFileBindsAllTargetsAndWarns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "broker.conf")
	if err := os.WriteFile(path, []byte("listenPort=10921\nrocketmqHome=/opt/rmq\nnoSuchKey=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var a cfgA
	var b cfgB
	var warn bytes.Buffer
	m, err := LoadFile(path, &warn, &a, &b)
	if err != nil {
		t.Fatal(err)
	}
	if a.Port != 10921 || b.Port != 10921 || a.Home != "/opt/rmq" || m["noSuchKey"] != "1" {
		t.Fatalf("a %+v b %+v props %v", a, b, m)
	}
	if got := warn.String(); !bytes.HasPrefix([]byte(got), []byte("warning: ")) || !bytes.Contains([]byte(got), []byte("noSuchKey")) {
		t.Fatalf("warnings %q", got)
	}
}

func TestPropsLoadFileEmptyPathAndMissingFile(t *testing.T) {
	var a cfgA
	var warn bytes.Buffer
	if m, err := LoadFile("", &warn, &a); m != nil || err != nil || warn.Len() != 0 {
		t.Fatalf("empty path: %v %v %q", m, err, warn.String())
	}
	if _, err := LoadFile(filepath.Join(t.TempDir(), "missing.conf"), &warn, &a); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}
