// Package wait holds polling helpers for tests. It imports only the standard
// library, so tests of any package (even those the broker imports) can use it.
package wait

import (
	"testing"
	"time"
)

// Eventually calls f every few milliseconds until it returns nil, and fails
// the test with f's last error when timeout passes first.
func Eventually(t testing.TB, timeout time.Duration, f func() error) {
	t.Helper()
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
