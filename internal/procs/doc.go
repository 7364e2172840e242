// Package procs chooses the GOMAXPROCS of a server process that runs gnet
// event loops (cmd/mqbroker, cmd/mqstandalone).
//
// A gnet event loop waits for its sockets in a plain epoll_wait system
// call, and a goroutine blocked in a system call keeps its P. With more
// loops than Ps, a goroutine woken while every P is held by a waiting loop
// (a pull worker woken by a long poll, a loop woken by its eventfd to write
// an answer) runs only when sysmon takes a P back, up to 10 ms later: that
// was the broker's long-poll wake-up p99 (issue #11). One P more per loop
// lets a woken goroutine find an idle P at once; the extra Ps cost no CPU
// while the loops wait.
//
// The rule (For):
//
//	GOMAXPROCS in the environment       → kept (the user's choice)
//	runtime's choice < runtime.NumCPU() → kept (a CPU quota, e.g. a
//	                                       container limit, chose it: more
//	                                       Ps than the quota oversubscribes
//	                                       it and the kernel throttles the
//	                                       whole process)
//	otherwise                           → runtime's choice + loops
//
// Usage, first thing in main once the number of loops is known:
//
//	procs.Raise(lg, broker.EventLoops(cfgs.Server))
package procs
