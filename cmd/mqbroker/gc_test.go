package main

import (
	"os"
	"runtime/metrics"
	"syscall"
	"testing"
	"unsafe"
)

// TestMqbrokerGCBallast: without GOGC / GOMEMLIMIT the broker process keeps
// a heap goal above the ballast (so a live heap of a few MB is not collected
// every few MB allocated), and the ballast itself is not resident memory.
func TestMqbrokerGCBallast(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT set: no ballast by design")
	}
	if len(gcBallast) != gcBallastSize {
		t.Fatalf("ballast %d bytes, want %d", len(gcBallast), gcBallastSize)
	}
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	if goal := s[0].Value.Uint64(); goal < gcBallastSize {
		t.Fatalf("heap goal %d bytes, below the %d-byte floor", goal, gcBallastSize)
	}
	page := os.Getpagesize()
	start := uintptr(unsafe.Pointer(unsafe.SliceData(gcBallast)))
	aligned := (start + uintptr(page) - 1) &^ uintptr(page-1)
	n := (gcBallastSize - int(aligned-start)) / page * page
	vec := make([]byte, n/page)
	if _, _, errno := syscall.Syscall(syscall.SYS_MINCORE, aligned, uintptr(n), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Skip("mincore:", errno)
	}
	resident := 0
	for _, v := range vec {
		resident += int(v & 1)
	}
	if resident > len(vec)/100 {
		t.Fatalf("%d of %d ballast pages resident", resident, len(vec))
	}
}
