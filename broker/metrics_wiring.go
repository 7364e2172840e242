package broker

// Metrics wiring: the Prometheus exporter (metricsExporterType=PROM), the
// broker's collector and the RPC latency observer on both servers. Java
// 5.x: BrokerMetricsManager, created in BrokerController.initialize.

import (
	"context"
	"net"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/metrics"
	imetrics "github.com/rocketmq-go/rmq/internal/metrics"
	"github.com/rocketmq-go/rmq/remoting"
)

// initMetrics builds the exporter; when it is enabled, also the collector
// and the RPC observer. Called by New after initServers.
func (b *Broker) initMetrics() error {
	cfg := b.Config()
	exp, err := imetrics.NewExporter(cfg.Metrics, cfg.BrokerIP1, b.lg.Named("metrics"))
	if err != nil {
		return err
	}
	b.exporter = exp
	if !exp.Enabled() {
		return nil
	}
	labels := cfg.Metrics.ConstLabels(imetrics.NodeTypeBroker, cfg.BrokerClusterName, cfg.BrokerName)
	if _, bad := cfg.Metrics.Labels(); len(bad) > 0 {
		b.lg.Warn("metricsLabel items not key:value, ignored", zap.Strings("items", bad))
	}
	b.metrics = metrics.NewCollector(b.metricsSources(), labels)
	exp.Registry().MustRegister(b.metrics)
	lat := imetrics.NewRPCLatency(exp.Registry(), labels)
	obs := func(r remoting.RPCRecord) {
		lat.Observe(r.RequestCode, r.ResponseCode, r.Latency, r.Oneway, r.Suspended, r.WriteFailed)
	}
	b.server.SetRPCObserver(obs)
	b.fastServer.SetRPCObserver(obs)
	return nil
}

func (b *Broker) metricsSources() metrics.Sources {
	src := metrics.Sources{
		Stats: b.stats, Store: b.store, Topics: b.topics, Subs: b.subs, Offsets: b.offsets,
		Consumers: b.consumers, Producers: b.producers,
		Permission: func() int { return b.Config().BrokerPermission },
		Watermarks: b.watermarks,
		StoreRoot:  b.storeCfg.StorePathRootDir,
	}
	src.HA = func() map[string]int64 {
		if s := b.haService(); s != nil {
			return s.SlaveAckOffsets()
		}
		return nil
	}
	return src
}

// watermarks are the processor queues under 5.x's processor label values.
func (b *Broker) watermarks() []metrics.Watermark {
	p := &b.Pools
	out := make([]metrics.Watermark, 0, 10)
	for _, e := range []struct {
		name string
		pool *remoting.Pool
	}{{"send", p.Send}, {"async_put", p.Put}, {"pull", p.Pull}, {"query_message", p.Query},
		{"client_manager", p.Client}, {"heartbeat", p.Heartbeat}, {"transaction", p.EndTransaction},
		{"consumer_manager", p.ConsumerManage}, {"admin", p.Admin}, {"reply", p.Reply}} {
		out = append(out, metrics.Watermark{Processor: e.name, Queued: b.QueueLen(e.pool)})
	}
	return out
}

// MetricsAddr is the metrics exporter's bound address after Start; nil
// unless metricsExporterType is PROM.
func (b *Broker) MetricsAddr() net.Addr { return b.exporter.Addr() }

func (b *Broker) startMetrics() error { return b.exporter.Start() }

func (b *Broker) stopMetrics(ctx context.Context) error { return b.exporter.Shutdown(ctx) }
