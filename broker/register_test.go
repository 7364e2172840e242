package broker_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// routeOf asks a name server for a topic route as a client does.
func routeOf(c *remoting.Client, nsAddr, topic string) (*body.TopicRouteData, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	resp, err := c.InvokeSync(ctx, nsAddr, codec.NewRequest(code.GetRouteinfoByTopic, map[string]string{"topic": topic}, nil))
	if err != nil {
		return nil, err
	}
	if resp.Code != code.Success {
		return nil, fmt.Errorf("route %s: code %d %s", topic, resp.Code, resp.Remark)
	}
	return body.DecodeTopicRouteData(resp.Body)
}

func wantRoute(t *testing.T, c *remoting.Client, nsAddr, topic, brokerAddr string, queues int32) {
	t.Helper()
	testutil.Eventually(t, 10*time.Second, func() error {
		r, err := routeOf(c, nsAddr, topic)
		if err != nil {
			return err
		}
		if len(r.BrokerDatas) != 1 || r.BrokerDatas[0].BrokerAddrs[0] != brokerAddr {
			return fmt.Errorf("broker datas %+v", r.BrokerDatas)
		}
		if len(r.QueueDatas) != 1 || r.QueueDatas[0].WriteQueueNums != queues {
			return fmt.Errorf("queue datas %+v", r.QueueDatas)
		}
		return nil
	})
}

func TestBrokerRegisterWithEveryNamesrv(t *testing.T) {
	for _, compressed := range []bool{false, true} {
		t.Run(fmt.Sprintf("compressed=%v", compressed), func(t *testing.T) {
			ns1, ns2 := testutil.StartNamesrv(t), testutil.StartNamesrv(t)
			nsList := ns1.Addr().String() + ";" + ns2.Addr().String()
			b := testutil.StartBroker(t, nsList, func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) {
				c.CompressedRegister = compressed
			})
			c := newClient(t)
			for _, ns := range []string{ns1.Addr().String(), ns2.Addr().String()} {
				wantRoute(t, c, ns, "TBW102", b.BrokerAddr(), 8)
				wantRoute(t, c, ns, "SELF_TEST_TOPIC", b.BrokerAddr(), 1)
			}
			// A topic auto-created by a send reaches both name servers.
			h := sendHeader("NewTopic", 0, nil)
			wantCode(t, invoke(t, c, b.Addr().String(), sendRequest(code.SendMessage, h, []byte("x"))), code.Success)
			for _, ns := range []string{ns1.Addr().String(), ns2.Addr().String()} {
				wantRoute(t, c, ns, "NewTopic", b.BrokerAddr(), 4)
			}
			// Shutdown unregisters: the routes disappear at once.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := b.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
			for _, ns := range []string{ns1.Addr().String(), ns2.Addr().String()} {
				if _, err := routeOf(c, ns, "NewTopic"); err == nil {
					t.Fatalf("route of NewTopic still served by %s after shutdown", ns)
				}
			}
		})
	}
}

func TestBrokerRegisterIncrement(t *testing.T) {
	ns := testutil.StartNamesrv(t)
	b := testutil.StartBroker(t, ns.Addr().String())
	tc := body.NewTopicConfig("AdminTopic")
	tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm = 2, 2, 6
	b.Topics().UpdateTopicConfig(tc)
	b.RegisterIncrementBrokerData(tc, b.Topics().DataVersion())
	wantRoute(t, newClient(t), ns.Addr().String(), "AdminTopic", b.BrokerAddr(), 2)
}

func TestBrokerRegisterSlaveLearnsMaster(t *testing.T) {
	ns := testutil.StartNamesrv(t)
	master := testutil.StartBroker(t, ns.Addr().String())
	slave := testutil.StartBroker(t, ns.Addr().String(), func(c *broker.BrokerConfig, s *store.MessageStoreConfig) {
		c.BrokerID = 1
		s.BrokerRole = store.Slave
	})
	if !slave.IsSlave() || slave.Role() != store.Slave {
		t.Fatal("role")
	}
	if got := slave.MasterAddr(); got != master.BrokerAddr() {
		t.Fatalf("slave learnt master %q, want %q", got, master.BrokerAddr())
	}
	if master.MasterAddr() != "" {
		t.Fatalf("master learnt master %q", master.MasterAddr())
	}
	// The slave refuses writes as Java's store does.
	c := newClient(t)
	resp := invoke(t, c, slave.Addr().String(), sendRequest(code.SendMessage, sendHeader("TopicTest", 0, nil), []byte("x")))
	wantCode(t, resp, code.ServiceNotAvailable)
}

func TestBrokerNewRejectsBadConfig(t *testing.T) {
	cfg, scfg := testutil.NewBrokerConfigs(t, "not-an-address")
	_, err := broker.New(cfg, scfg, broker.Options{})
	if err == nil {
		t.Fatal("New accepted a bad namesrvAddr")
	}
	cfg, scfg = testutil.NewBrokerConfigs(t, "")
	b, err := broker.New(cfg, scfg, broker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Shutdown without Start releases the store so it can be opened again.
	if err := b.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	b2, err := broker.New(cfg, scfg, broker.Options{})
	if err != nil {
		t.Fatalf("reopen after shutdown: %v", err)
	}
	if err := b2.Shutdown(context.Background()); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
}
