package main

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTick is USER_HZ, the unit of utime/stime in /proc/<pid>/stat
// (100 on every Linux architecture Go supports).
const clockTick = 10 * time.Millisecond

// cpuTime returns the user+system CPU time the process pid ("self" or a
// number) has used so far, or -1 when /proc cannot tell. On a loaded
// machine CPU per request is a steadier figure than requests per second.
func cpuTime(pid string) time.Duration {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return -1
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // comm may contain spaces
	if i < 0 {
		return -1
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return -1
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64) // field 14: utime
	k, err2 := strconv.ParseInt(f[12], 10, 64) // field 15: stime
	if err1 != nil || err2 != nil {
		return -1
	}
	return time.Duration(u+k) * clockTick
}

// perRequest formats the CPU used between two cpuTime readings per request.
func perRequest(before, after time.Duration, n int) string {
	if before < 0 || after < 0 || n == 0 {
		return "n/a"
	}
	return (time.Duration(int64(after-before) / int64(n))).String()
}
