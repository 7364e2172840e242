package broker

// The configuration steps of BrokerStartup.createBrokerController (4.9.8)
// that do not depend on the command line, shared by cmd/mqbroker and
// cmd/mqstandalone.

import (
	"errors"

	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/remoting"
)

// ErrSlaveBrokerID is BrokerStartup's "Slave's brokerId must be > 0"
// (mqbroker prints Java's text).
var ErrSlaveBrokerID = errors.New("broker: slave's brokerId must be > 0")

// StartupConfigs are the four configuration objects BrokerStartup fills
// from the properties file (every key applies to each that declares it).
type StartupConfigs struct {
	Broker *BrokerConfig
	Server *remoting.NettyServerConfig
	Client *remoting.NettyClientConfig
	Store  *store.MessageStoreConfig
}

// NewStartupConfigs returns the Java defaults with listenPort 10911.
func NewStartupConfigs() *StartupConfigs {
	return &StartupConfigs{
		Broker: NewBrokerConfig(),
		Server: NewNettyServerConfig(),
		Client: remoting.NewNettyClientConfig(),
		Store:  store.NewMessageStoreConfig(),
	}
}

// Targets lists the configs in Java's bind and print order.
func (c *StartupConfigs) Targets() []any { return []any{c.Broker, c.Server, c.Client, c.Store} }

// ApplyOverrides applies what BrokerStartup does after loading: a master's
// brokerId becomes 0, a slave needs brokerId > 0, and haListenPort is
// always listenPort + 1. In controller mode (5.x) brokerRole and brokerId
// are left as written (the quick start's SLAVE with -1): the controller
// assigns both.
func (c *StartupConfigs) ApplyOverrides() error {
	role := c.Store.BrokerRole
	if c.Broker.EnableControllerMode {
		role = ""
	}
	switch role {
	case store.AsyncMaster, store.SyncMaster:
		c.Broker.BrokerID = MasterID
	case store.Slave:
		if c.Broker.BrokerID <= 0 {
			return ErrSlaveBrokerID
		}
	}
	c.Store.HAListenPort = c.Server.ListenPort + 1
	return nil
}
