package main

import "time"

// perRequest formats the CPU used between two procstat.CPUTime readings per
// request.
func perRequest(before, after time.Duration, n int) string {
	if before < 0 || after < 0 || n == 0 {
		return "n/a"
	}
	return (time.Duration(int64(after-before) / int64(n))).String()
}
