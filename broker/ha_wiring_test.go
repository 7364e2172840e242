package broker_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/props"
)

// TestHAConfFilesLoad: the master/slave example files of conf/2m-2s-async
// load with no warnings and give the roles, ids and ports docs/ha.md says.
func TestHAConfFilesLoad(t *testing.T) {
	cases := []struct {
		file            string
		role            store.BrokerRole
		id              int64
		listen, haPort  int
		slaveReadEnable bool
	}{
		{"broker-a.properties", store.AsyncMaster, 0, 10911, 10912, true},
		{"broker-a-s.properties", store.Slave, 1, 11911, 11912, true},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("..", "conf", "2m-2s-async", c.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			m, err := props.Parse(f)
			if err != nil {
				t.Fatal(err)
			}
			cfgs := broker.NewStartupConfigs()
			if w := props.Bind(m, cfgs.Targets()...); len(w) != 0 {
				t.Fatalf("warnings: %v", w)
			}
			if err := cfgs.ApplyOverrides(); err != nil {
				t.Fatal(err)
			}
			if cfgs.Store.BrokerRole != c.role || cfgs.Broker.BrokerID != c.id || cfgs.Server.ListenPort != c.listen ||
				cfgs.Store.HAListenPort != c.haPort || cfgs.Broker.SlaveReadEnable != c.slaveReadEnable {
				t.Fatalf("got role %s id %d listen %d ha %d slaveRead %v", cfgs.Store.BrokerRole, cfgs.Broker.BrokerID,
					cfgs.Server.ListenPort, cfgs.Store.HAListenPort, cfgs.Broker.SlaveReadEnable)
			}
		})
	}
}
