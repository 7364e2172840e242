package controller

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestReplicasMetadataFiles: brokerIdentity and brokerIdentity-temp hold
// 5.x's text ("cluster#name#id", plus "#checkCode" in the temp file) and
// read back; a missing file is not an error; garbage is ErrBadMetadata.
func TestReplicasMetadataFiles(t *testing.T) {
	dir := t.TempDir()
	path := MetadataPath(dir)
	if filepath.Base(path) != "brokerIdentity" || filepath.Base(TempMetadataPath(path)) != "brokerIdentity-temp" {
		t.Fatalf("paths %s %s", path, TempMetadataPath(path))
	}
	if _, ok, err := ReadMetadata(path, false); ok || err != nil {
		t.Fatalf("missing file: ok %v err %v", ok, err)
	}
	m := Metadata{ClusterName: "DefaultCluster", BrokerName: "broker-a", BrokerID: 2, CheckCode: "127.0.0.1:30911;1700000000000"}
	if err := WriteMetadata(TempMetadataPath(path), m, true); err != nil {
		t.Fatal(err)
	}
	if err := WriteMetadata(path, m, false); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{
		path:                   "DefaultCluster#broker-a#2",
		TempMetadataPath(path): "DefaultCluster#broker-a#2#127.0.0.1:30911;1700000000000",
	} {
		got, err := os.ReadFile(file)
		if err != nil || string(got) != want {
			t.Fatalf("%s = %q, %v; want %q", file, got, err, want)
		}
	}
	got, ok, err := ReadMetadata(TempMetadataPath(path), true)
	if err != nil || !ok || got != m {
		t.Fatalf("temp read %+v %v %v", got, ok, err)
	}
	got, ok, err = ReadMetadata(path, false)
	m.CheckCode = ""
	if err != nil || !ok || got != m {
		t.Fatalf("read %+v %v %v", got, ok, err)
	}
	if err := RemoveMetadata(TempMetadataPath(path)); err != nil {
		t.Fatal(err)
	}
	if err := RemoveMetadata(TempMetadataPath(path)); err != nil {
		t.Fatalf("second remove: %v", err)
	}
	for _, bad := range []string{"", "a#b", "a#b#x", "#b#1", "a#b#1#"} {
		if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		temp := bad == "a#b#1#"
		if _, _, err := ReadMetadata(path, temp); !errors.Is(err, ErrBadMetadata) {
			t.Errorf("%q: err %v, want ErrBadMetadata", bad, err)
		}
	}
}

// FuzzReplicasMetadata: the reader never panics on any file content.
func FuzzReplicasMetadata(f *testing.F) {
	f.Add("DefaultCluster#broker-a#2", false)
	f.Add("DefaultCluster#broker-a#2#127.0.0.1:1;5", true)
	f.Add("##", true)
	f.Fuzz(func(t *testing.T, s string, temp bool) {
		m, err := decodeMetadata(s, temp)
		if err == nil && m.encode(temp) == "" {
			t.Fatal("decoded to nothing")
		}
	})
}
