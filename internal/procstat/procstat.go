// Package procstat reads a process's CPU time from /proc, for the
// benchmark tools that report server CPU per request or per message (a
// steadier figure than throughput on a loaded machine).
package procstat

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTick is USER_HZ, the unit of utime/stime in /proc/<pid>/stat (100
// on every Linux build that matters here).
const clockTick = 10 * time.Millisecond

// CPUTime returns the user+system CPU time process pid ("self" or a
// number) has used so far, or -1 when /proc cannot tell.
func CPUTime(pid string) time.Duration {
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
