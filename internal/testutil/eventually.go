package testutil

import (
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/wait"
)

// Eventually is wait.Eventually; packages that the broker or name server
// import must use internal/wait directly, since testutil imports both.
func Eventually(t testing.TB, timeout time.Duration, f func() error) {
	t.Helper()
	wait.Eventually(t, timeout, f)
}
