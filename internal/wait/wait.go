// Package wait holds polling helpers for tests. It imports only the standard
// library, so tests of any package (even those the broker imports) can use it.
//
// Under the race detector every timeout is stretched by Scale: CI runs the
// suite with -race on a loaded 2-core machine, where goroutines run several
// times slower. A longer bound costs time only when the condition fails, so
// it never hides a failure; timing-only assertions belong in TestNoRace*
// tests, which are built without -race and see their timeouts unchanged.
package wait

import (
	"testing"
	"time"
)

// Scale returns d stretched for the current build: unchanged without the
// race detector; with it, four times d, but never past a minute unless d
// itself is longer.
func Scale(d time.Duration) time.Duration {
	if raceFactor == 1 {
		return d
	}
	return min(d*raceFactor, max(d, time.Minute))
}

// Eventually calls f every few milliseconds until it returns nil, and fails
// the test with f's last error when Scale(timeout) passes first.
func Eventually(t testing.TB, timeout time.Duration, f func() error) {
	t.Helper()
	timeout = Scale(timeout)
	deadline := time.Now().Add(timeout)
	wait := time.Millisecond
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %v: %v", timeout, err)
		}
		time.Sleep(wait)
		wait = min(wait*2, 50*time.Millisecond)
	}
}
