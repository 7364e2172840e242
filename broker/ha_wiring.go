package broker

// HA wiring: builds broker/ha's Service for every broker (Java
// DefaultMessageStore creates HAService unless DLedger is on), plugs it into
// b.HA before Start, and wakes its transfer writers for every dispatched
// message.

import (
	"net"
	"strconv"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/ha"
)

func init() { processorFamilies = append(processorFamilies, wireHA) }

func wireHA(b *Broker) {
	if b.HA != nil {
		return
	}
	cfg := ha.ConfigFromStore(b.storeCfg, "")
	cfg.ListenAddr = b.haListenAddr()
	svc, err := ha.New(b.store, cfg, b.lg.Named("ha"))
	if err != nil {
		b.lg.Error("ha service not created", zap.Error(err))
		return
	}
	b.HA = svc
	b.OnArriving(func(string, int32, int64, int64, int64, []byte, map[string]string) { svc.NotifyAppend() })
}

// haListenAddr is haListenPort on the main server's host. When the main
// server listens on an ephemeral port (tests), so does HA, as the fast
// server does; HAServerAddr then reports the bound port.
func (b *Broker) haListenAddr() string {
	port := b.storeCfg.HAListenPort
	host := ""
	if b.srvCfg.ListenAddr != "" {
		h, p, err := net.SplitHostPort(b.srvCfg.ListenAddr)
		if err == nil {
			host = h
			if p == "0" {
				port = 0
			}
		}
	} else if b.srvCfg.ListenPort == 0 {
		port = 0
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}

// haService is the concrete HA service, or nil when another
// implementation was plugged into b.HA.
func (b *Broker) haService() *ha.Service {
	s, _ := b.HA.(*ha.Service)
	return s
}
