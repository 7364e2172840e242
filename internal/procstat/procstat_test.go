package procstat

import (
	"os"
	"strconv"
	"testing"
	"time"
)

func TestProcstatCPUTimeGrows(t *testing.T) {
	before := CPUTime("self")
	if before < 0 {
		t.Skip("no /proc here")
	}
	for end := time.Now().Add(100 * time.Millisecond); time.Now().Before(end); {
	}
	if after := CPUTime(strconv.Itoa(os.Getpid())); after <= before {
		t.Fatalf("CPU time %v after 100 ms of spinning, was %v", after, before)
	}
	if got := CPUTime("no-such-pid"); got != -1 {
		t.Fatalf("CPUTime of a missing process = %v, want -1", got)
	}
}
