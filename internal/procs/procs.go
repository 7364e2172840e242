package procs

import (
	"os"
	"runtime"

	"go.uber.org/zap"
)

// start is GOMAXPROCS as the runtime chose it when the process started
// (cores, or the container's CPU quota), before Raise.
var start = runtime.GOMAXPROCS(0)

// Start is GOMAXPROCS as the runtime chose it when the process started.
func Start() int { return start }

// Reason says why For kept or raised GOMAXPROCS; it is logged.
type Reason string

// The reasons For gives.
const (
	Raised   Reason = "raised"   // one P more per event loop
	FromEnv  Reason = "fromEnv"  // GOMAXPROCS is set in the environment
	CPUQuota Reason = "cpuQuota" // the runtime chose fewer Ps than CPUs
	NoLoops  Reason = "noLoops"  // nothing to add
)

// For is the GOMAXPROCS to run with: start (the runtime's choice) plus one
// per event loop, but start as it is when env (the GOMAXPROCS variable) is
// set or when start is below numCPU, i.e. a CPU quota made the runtime
// choose fewer Ps than the machine has CPUs.
func For(env string, start, numCPU, loops int) (int, Reason) {
	switch {
	case env != "":
		return start, FromEnv
	case start < numCPU:
		return start, CPUQuota
	case loops <= 0:
		return start, NoLoops
	}
	return start + loops, Raised
}

// Raise applies For to this process and logs the outcome. Setting
// GOMAXPROCS also stops the runtime from following later changes of a
// container's CPU quota; it is set only when no quota applies.
func Raise(lg *zap.Logger, loops int) {
	env, cpus := os.Getenv("GOMAXPROCS"), runtime.NumCPU()
	n, why := For(env, start, cpus, loops)
	if why != Raised {
		lg.Info("gomaxprocs", zap.Int("gomaxprocs", runtime.GOMAXPROCS(0)), zap.String("kept", string(why)),
			zap.Int("cpus", cpus))
		return
	}
	runtime.GOMAXPROCS(n)
	// Raised means no quota and no GOMAXPROCS: start is cpus.
	lg.Info("gomaxprocs raised by one per event loop", zap.Int("gomaxprocs", n),
		zap.Int("cpus", cpus), zap.Int("eventLoops", loops))
}
