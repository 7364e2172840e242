// Package metrics is the Prometheus side shared by the broker and the name
// server: the 5.x configuration keys (metricsExporterType,
// metricsPromExporterHost, metricsPromExporterPort, metricsLabel), an HTTP
// exporter serving /metrics from its own registry with the Go runtime and
// process collectors, and the rocketmq_rpc_latency histogram fed by the
// remoting server's RPC observer.
//
// Names follow what a Prometheus server scrapes from an Apache RocketMQ 5.x
// broker: 5.x records through OpenTelemetry and exports with
// opentelemetry-exporter-prometheus 1.29, which turns the instrument name's
// dots into underscores, appends the unit when the name does not already
// contain it ("milliseconds", "bytes") and "_total" to counters. So the
// 5.x instrument rocketmq_rpc_latency (unit milliseconds) is scraped as
// rocketmq_rpc_latency_milliseconds_bucket/_sum/_count. docs/metrics.md
// lists every metric.
//
// Cost: nothing is timed or counted while the exporter is disabled (the
// default, as in 5.x). When enabled, the RPC observer does two clock reads,
// one read-locked map lookup of a cached histogram child and one atomic observation
// per request; everything else is read lazily at scrape time.
//
// Usage:
//
//	exp, err := metrics.NewExporter(cfg, defaultHost, lg)
//	exp.Registry().MustRegister(myCollector)
//	srv.SetRPCObserver(metrics.NewRPCLatency(exp.Registry(), labels).Observe)
//	err = exp.Start() // binds metricsPromExporterHost:metricsPromExporterPort
//	defer exp.Shutdown(ctx)
package metrics
