package namesrv

// Metrics wiring: with metricsExporterType=PROM the name server serves
// /metrics with the Go runtime and process metrics and
// rocketmq_rpc_latency per request and response code. 5.x's name server
// has no metrics; the names and labels are the broker's, with
// node_type="nameserver" and node_id the bound address.

import (
	"context"
	"fmt"
	"net"
	"sync/atomic"

	"github.com/rocketmq-go/rmq/internal/metrics"
	"github.com/rocketmq-go/rmq/remoting"
)

type nsMetrics struct {
	exp *metrics.Exporter
	// lat is set by Start once the address (node_id) is known; requests
	// answered before that are not timed.
	lat atomic.Pointer[metrics.RPCLatency]
}

// initMetrics builds the exporter and, when enabled, installs the RPC
// observer (before the server starts, as SetRPCObserver requires).
func (n *Namesrv) initMetrics(c *NamesrvConfig) error {
	exp, err := metrics.NewExporter(c.Metrics, "", n.lg.Named("metrics"))
	if err != nil {
		return err
	}
	n.metrics.exp = exp
	if exp.Enabled() {
		n.srv.SetRPCObserver(func(r remoting.RPCRecord) {
			if lat := n.metrics.lat.Load(); lat != nil {
				lat.Observe(r.RequestCode, r.ResponseCode, r.Latency, r.Oneway, r.Suspended, r.WriteFailed)
			}
		})
	}
	return nil
}

// startMetrics registers the latency histogram under the bound address and
// starts the exporter.
func (n *Namesrv) startMetrics() error {
	m := &n.metrics
	if m.exp.Enabled() {
		labels := n.Config().Metrics.ConstLabels(metrics.NodeTypeNameserver, "", n.srv.Addr().String())
		m.lat.Store(metrics.NewRPCLatency(m.exp.Registry(), labels))
	}
	if err := m.exp.Start(); err != nil {
		return fmt.Errorf("namesrv: %w", err)
	}
	return nil
}

// MetricsAddr is the metrics exporter's bound address after Start; nil
// unless metricsExporterType is PROM.
func (n *Namesrv) MetricsAddr() net.Addr { return n.metrics.exp.Addr() }

func (n *Namesrv) stopMetrics(ctx context.Context) error { return n.metrics.exp.Shutdown(ctx) }
