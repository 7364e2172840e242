package wait

import (
	"errors"
	"testing"
	"time"
)

func TestWaitScale(t *testing.T) {
	if raceFactor == 1 {
		if got := Scale(5 * time.Second); got != 5*time.Second {
			t.Fatalf("Scale(5s) without race = %v", got)
		}
		return
	}
	for _, c := range []struct{ in, want time.Duration }{
		{5 * time.Second, 20 * time.Second},
		{30 * time.Second, time.Minute},
		{2 * time.Minute, 2 * time.Minute},
	} {
		if got := Scale(c.in); got != c.want {
			t.Errorf("Scale(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestWaitEventuallyPollsUntilNil(t *testing.T) {
	n := 0
	Eventually(t, 5*time.Second, func() error {
		n++
		if n < 3 {
			return errors.New("not yet")
		}
		return nil
	})
	if n != 3 {
		t.Fatalf("f called %d times, want 3", n)
	}
}
