package broker

import (
	"math"
	"strings"
	"testing"

	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/props"
)

// controllerBrokerConfigKeys are the 5.3.3 BrokerConfig keys of controller
// mode that BrokerConfig declares after the 4.9.8 ones.
var controllerBrokerConfigKeys = []string{
	"enableControllerMode", "controllerAddr", "fetchControllerAddrByDnsLookup", "syncBrokerMetadataPeriod",
	"checkSyncStateSetPeriod", "syncControllerMetadataPeriod", "controllerHeartBeatTimeoutMills",
	"brokerElectionPriority", "brokerHeartbeatInterval", "sendHeartbeatTimeoutMillis", "enableSlaveActingMaster",
}

func TestBrokerConfigControllerDefaults(t *testing.T) {
	c := NewBrokerConfig()
	checks := map[string]string{ // 5.3.3 BrokerConfig initialisers
		"enableControllerMode": "false", "controllerAddr": "", "fetchControllerAddrByDnsLookup": "false",
		"syncBrokerMetadataPeriod": "5000", "checkSyncStateSetPeriod": "5000",
		"syncControllerMetadataPeriod": "10000", "controllerHeartBeatTimeoutMills": "10000",
		"brokerElectionPriority": "2147483647", "brokerHeartbeatInterval": "1000",
		"sendHeartbeatTimeoutMillis": "1000", "enableSlaveActingMaster": "false",
	}
	for k, want := range checks {
		if got, ok := props.Get(k, c); !ok || got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if c.BrokerElectionPriority != math.MaxInt32 || len(c.Unimplemented()) != 0 {
		t.Fatalf("priority %d, unimplemented %v", c.BrokerElectionPriority, c.Unimplemented())
	}
}

func TestBrokerConfigControllerValidate(t *testing.T) {
	c := NewBrokerConfig()
	c.BrokerID = -1
	c.EnableControllerMode = true
	c.ControllerAddr = "127.0.0.1:9878; 127.0.0.1:9868 ;"
	if err := c.Validate(); err != nil {
		t.Fatalf("brokerId -1 in controller mode: %v", err)
	}
	if got := c.ControllerAddrList(); len(got) != 2 || got[1] != "127.0.0.1:9868" {
		t.Fatalf("controller list %v", got)
	}
	c.ControllerAddr = ""
	c.SyncBrokerMetadataPeriod = 0
	err := c.Validate()
	if err == nil || !strings.Contains(err.Error(), "controllerAddr") || !strings.Contains(err.Error(), "syncBrokerMetadataPeriod") {
		t.Fatalf("want controllerAddr and period errors, got %v", err)
	}
	c.ControllerAddr = "nohost"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "nohost") {
		t.Fatalf("bad controllerAddr accepted: %v", err)
	}
	c.FetchControllerAddrByDNSLookup, c.EnableSlaveActingMaster = true, true
	if u := c.Unimplemented(); len(u) != 2 {
		t.Fatalf("unimplemented %v", u)
	}
}

// TestBrokerConfigNotControllerModeStillRejectsSlaveWithoutID: outside
// controller mode BrokerStartup's rules stand.
func TestBrokerConfigNotControllerModeStillRejectsSlaveWithoutID(t *testing.T) {
	c := NewStartupConfigs()
	c.Store.BrokerRole = store.Slave
	c.Broker.BrokerID = -1
	if err := c.ApplyOverrides(); err == nil {
		t.Fatal("slave with brokerId -1 accepted outside controller mode")
	}
	if err := c.Broker.Validate(); err == nil {
		t.Fatal("brokerId -1 validated outside controller mode")
	}
}
