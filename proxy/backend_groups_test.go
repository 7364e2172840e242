package proxy_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/proxy"
	"github.com/rocketmq-go/rmq/remoting/body"
)

// TestProxyClusterGroupsNotCachedWhenNoBrokerAnswered: a lookup made while
// no broker could be asked must not leave an empty group table behind for
// the cache's lifetime; the next lookup asks again.
func TestProxyClusterGroupsNotCachedWhenNoBrokerAnswered(t *testing.T) {
	ns := testutil.StartNamesrv(t)
	nsAddr := ns.Addr().String()
	be, err := proxy.NewClusterBackend([]string{nsAddr}, nil, zaptest.NewLogger(t).Named("proxy"))
	if err != nil {
		t.Fatalf("backend: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = be.Close(ctx)
	})
	ctx := t.Context()
	if cfg := be.SubscriptionGroup(ctx, "GCacheLater"); cfg != nil {
		t.Fatalf("group found with no broker: %+v", cfg)
	}

	b := testutil.StartBroker(t, nsAddr)
	b.Subscriptions().UpdateSubscriptionGroupConfig(body.NewSubscriptionGroupConfig("GCacheLater"))
	testutil.Eventually(t, 5*time.Second, func() error {
		m, err := be.MasterBrokers(ctx)
		if err != nil {
			return err
		}
		if len(m) == 0 {
			return errors.New("broker not registered yet")
		}
		return nil
	})
	if cfg := be.SubscriptionGroup(ctx, "GCacheLater"); cfg == nil {
		t.Fatal("group not found once its broker registered: the failed lookup's empty table was cached")
	}
}
