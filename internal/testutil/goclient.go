package testutil

import (
	"time"

	"github.com/rocketmq-go/rmq/internal/wait"
)

// clientSettle is how long after Start a rocketmq-client-go consumer is
// left running before its Shutdown.
const clientSettle = 2 * time.Second

// ShutdownSettled shuts a rocketmq-client-go consumer down no sooner than
// clientSettle (scaled for -race) after started, its Start time. The
// client's Start runs a first rebalance in a goroutine of its own whose
// requests read rmqClient.close without synchronisation while Shutdown
// writes it (internal/client.go), a data race inside the client that the
// race detector pins on whichever of our tests runs at that moment. Nothing
// outside the client tells when that pass ends, so a test that is done
// sooner waits it out here; the wait costs nothing to a test that ran
// longer.
func ShutdownSettled(started time.Time, shutdown func() error) error {
	time.Sleep(time.Until(started.Add(wait.Scale(clientSettle))))
	return shutdown()
}
