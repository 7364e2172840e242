package controller

import (
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// TestControllerConfigWarnsUnusedMappedFileSize: mappedFileSize is accepted
// for Java's files but sizes nothing here, so a non-default value is warned
// about; the default is not.
func TestControllerConfigWarnsUnusedMappedFileSize(t *testing.T) {
	for _, tc := range []struct {
		size int
		warn bool
	}{{defaultMappedFileSize, false}, {64 << 20, true}} {
		cfg := NewConfig()
		cfg.ControllerDLegerPeers, cfg.ControllerDLegerSelfId = "n0-127.0.0.1:9878", "n0"
		cfg.MappedFileSize = tc.size
		core, logs := observer.New(zap.WarnLevel)
		if _, err := New(cfg, zap.New(core)); err != nil {
			t.Fatal(err)
		}
		if got := logs.FilterMessageSnippet("mappedFileSize").Len() == 1; got != tc.warn {
			t.Fatalf("mappedFileSize=%d: warned %v, want %v", tc.size, got, tc.warn)
		}
	}
}
