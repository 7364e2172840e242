package broker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/props"
)

// TestBrokerConfigControllerConfsLoad: Apache 5.3.3's quick-start broker
// files (testdata/controller) and ours (conf/controller) bind with no
// warning, validate with brokerId -1 and keep SLAVE / -1 through
// BrokerStartup's overrides.
func TestBrokerConfigControllerConfsLoad(t *testing.T) {
	a, _ := filepath.Glob(filepath.Join("testdata", "controller", "*broker*.conf"))
	b, _ := filepath.Glob(filepath.Join("..", "conf", "controller", "broker-*.conf"))
	files := append(a, b...)
	if len(a) != 2 || len(b) != 3 {
		t.Fatalf("controller confs: %v", files)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			m, err := props.ParseString(string(data))
			if err != nil {
				t.Fatal(err)
			}
			c := NewStartupConfigs()
			if w := props.Bind(m, c.Targets()...); len(w) != 0 {
				t.Fatalf("warnings: %v", w)
			}
			if err := c.ApplyOverrides(); err != nil {
				t.Fatal(err)
			}
			if !c.Broker.EnableControllerMode || c.Broker.BrokerID != -1 || c.Store.BrokerRole != store.Slave {
				t.Fatalf("controller mode %v brokerId %d role %s", c.Broker.EnableControllerMode, c.Broker.BrokerID, c.Store.BrokerRole)
			}
			if len(c.Broker.ControllerAddrList()) == 0 || !strings.HasPrefix(c.Broker.ControllerAddrList()[0], "127.0.0.1:98") {
				t.Fatalf("controllerAddr %v", c.Broker.ControllerAddrList())
			}
			if err := c.Broker.Validate(); err != nil {
				t.Fatal(err)
			}
			if len(c.Broker.Unimplemented()) != 0 {
				t.Fatalf("unimplemented: %v", c.Broker.Unimplemented())
			}
		})
	}
}
