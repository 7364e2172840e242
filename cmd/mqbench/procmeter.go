package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rocketmq-go/rmq/internal/procstat"
)

// procMeter measures a server process over a window: its CPU time
// (utime+stime from /proc/<pid>/stat) and, at the end, its resident memory
// split as /proc/<pid>/status does (VmRSS = RssAnon + RssFile + RssShmem).
type procMeter struct {
	pid  int
	cpu0 time.Duration
}

// procUsage is what a procMeter saw over its window.
type procUsage struct {
	cpu                   time.Duration // -1: unknown
	rssKB, anonKB, fileKB int64         // -1: unknown
}

func startProcMeter(pid int) *procMeter {
	return &procMeter{pid: pid, cpu0: procstat.CPUTime(strconv.Itoa(pid))}
}

func (m *procMeter) stop() procUsage {
	u := procUsage{cpu: -1}
	if c := procstat.CPUTime(strconv.Itoa(m.pid)); c >= 0 && m.cpu0 >= 0 {
		u.cpu = c - m.cpu0
	}
	u.rssKB, u.anonKB, u.fileKB = rssKB(m.pid)
	return u
}

// perMsg is the server CPU per message in microseconds (-1: unknown).
func (u procUsage) perMsg(n int64) float64 {
	if u.cpu < 0 || n <= 0 {
		return -1
	}
	return float64(u.cpu.Microseconds()) / float64(n)
}

// rssKB reads VmRSS, RssAnon and RssFile (kB) of pid; -1 when unknown.
func rssKB(pid int) (rss, anon, file int64) {
	rss, anon, file = -1, -1, -1
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			continue
		}
		switch k {
		case "VmRSS":
			rss = n
		case "RssAnon":
			anon = n
		case "RssFile":
			file = n
		}
	}
	return
}
