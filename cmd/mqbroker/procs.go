package main

import (
	"os"
	"runtime"

	"go.uber.org/zap"
)

// startProcs is GOMAXPROCS as the runtime chose it when the process
// started (cores, or the container's CPU limit), before raiseProcs.
var startProcs = runtime.GOMAXPROCS(0)

// procsFor is the GOMAXPROCS the broker runs with: the runtime's choice
// plus one P for each gnet event loop, unless the user set GOMAXPROCS
// (env is its value), which is kept as it is.
//
// Why (issue #11): a gnet event loop waits for its sockets in a plain
// epoll_wait system call, and a goroutine blocked in a system call keeps its
// P. With 6 loops (main and fast server) on 2 Ps, a goroutine woken while
// both Ps are held by loops in epoll_wait (a pull worker woken by a long
// poll, a loop woken by its eventfd to write an answer) waits until sysmon
// takes a P back, up to 10 ms in a mostly idle process: that was the
// long-poll wake-up p99. With a P per loop on top of the cores, a woken
// goroutine finds an idle P at once. The loops' Ps cost no CPU while they
// wait; GOMAXPROCS only bounds how many goroutines run Go code at once.
func procsFor(env string, start, loops int) (procs int, raised bool) {
	if env != "" || loops <= 0 {
		return start, false
	}
	return start + loops, true
}

// raiseProcs applies procsFor to this process and logs the result. Setting
// GOMAXPROCS also stops the runtime from following later changes of a
// container's CPU limit; an explicit GOMAXPROCS keeps that to the user.
func raiseProcs(lg *zap.Logger, loops int) {
	env := os.Getenv("GOMAXPROCS")
	procs, raised := procsFor(env, startProcs, loops)
	if !raised {
		lg.Info("gomaxprocs", zap.Int("gomaxprocs", runtime.GOMAXPROCS(0)), zap.Bool("fromEnv", env != ""))
		return
	}
	runtime.GOMAXPROCS(procs)
	lg.Info("gomaxprocs raised by one per event loop", zap.Int("gomaxprocs", procs),
		zap.Int("cpus", startProcs), zap.Int("eventLoops", loops))
}
