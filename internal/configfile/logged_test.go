package configfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

func TestConfigFilePersistPrettyThenLoadLogged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.json")
	if err := PersistPretty(path, []byte(`{"a":{0:1}}`)); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if want := "{\n\t\"a\":{0:1\n\t}\n}"; string(got) != want {
		t.Fatalf("file %q, want %q", got, want)
	}
	core, logs := observer.New(zapcore.InfoLevel)
	var seen string
	if err := LoadLogged(zap.New(core), "test table", path, decodeJSONish(&seen)); err != nil {
		t.Fatal(err)
	}
	if seen != string(got) {
		t.Fatalf("decoded %q", seen)
	}
	e := logs.FilterMessage("config file loaded").All()
	if len(e) != 1 || e[0].ContextMap()["source"] != "main" || e[0].ContextMap()["config"] != "test table" {
		t.Fatalf("log entries %v", logs.All())
	}
}

func TestConfigFileLoadLoggedDiscardAndCorrupt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.json")
	if err := os.WriteFile(path, []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	core, logs := observer.New(zapcore.InfoLevel)
	var seen string
	if err := LoadLogged(zap.New(core), "t", path, decodeJSONish(&seen)); err != nil {
		t.Fatalf("discarded main without bak must start empty: %v", err)
	}
	if logs.FilterLevelExact(zapcore.WarnLevel).Len() != 1 || seen != "" {
		t.Fatalf("want one warning and nothing decoded: %v %q", logs.All(), seen)
	}
	if err := os.WriteFile(path+".bak", []byte("bad bak"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := LoadLogged(zap.New(core), "t", path, decodeJSONish(&seen))
	if !errors.Is(err, ErrCorrupt) || logs.FilterMessage("load config file failed").Len() != 1 {
		t.Fatalf("bad bak: err %v logs %v", err, logs.All())
	}
}
