package procs

import "testing"

func TestProcsFor(t *testing.T) {
	for _, tc := range []struct {
		env                  string
		start, numCPU, loops int
		want                 int
		why                  Reason
	}{
		{"", 2, 2, 6, 8, Raised},    // Java defaults on 2 cores: 3 + 3 loops
		{"", 16, 16, 2, 18, Raised}, // serverSelectorThreads=1
		{"4", 2, 2, 6, 2, FromEnv},  // the user's GOMAXPROCS is what the runtime started with
		{"", 2, 8, 6, 2, CPUQuota},  // a container limited to 2 of 8 CPUs
		{"", 1, 64, 9, 1, CPUQuota}, // a fractional quota rounds up to 1
		{"2", 2, 8, 6, 2, FromEnv},  // the environment wins over the quota
		{"", 2, 2, 0, 2, NoLoops},
	} {
		got, why := For(tc.env, tc.start, tc.numCPU, tc.loops)
		if got != tc.want || why != tc.why {
			t.Errorf("For(%q, %d, %d, %d) = %d, %s; want %d, %s", tc.env, tc.start, tc.numCPU, tc.loops, got, why, tc.want, tc.why)
		}
	}
}
