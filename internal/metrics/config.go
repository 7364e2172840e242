package metrics

import (
	"fmt"
	"strconv"
	"strings"
)

// Exporter types: Java's MetricsExporterType names (5.x also accepts the
// ordinal, 0..3).
const (
	ExporterDisable  = "DISABLE"
	ExporterOTLPGRPC = "OTLP_GRPC"
	ExporterProm     = "PROM"
	ExporterLog      = "LOG"
)

// DefaultPromExporterPort is 5.x BrokerConfig.metricsPromExporterPort.
const DefaultPromExporterPort = 5557

// ExporterConfig holds the 5.x BrokerConfig metrics keys that apply here.
// BrokerConfig and NamesrvConfig embed it, so the same keys work in both
// files (5.x's name server has no metrics; there they are ours).
type ExporterConfig struct {
	// MetricsExporterType: DISABLE (5.x default), PROM serves /metrics;
	// OTLP_GRPC and LOG are not implemented (a warning, nothing exported).
	MetricsExporterType string `prop:"metricsExporterType"`
	// MetricsPromExporterHost: the address to bind; 5.x default "" means
	// brokerIP1 on a broker (every interface on the name server).
	MetricsPromExporterHost string `prop:"metricsPromExporterHost"`
	// MetricsPromExporterPort: 5.x default 5557; 0 takes an ephemeral port.
	MetricsPromExporterPort int `prop:"metricsPromExporterPort"`
	// MetricsLabel: "k1:v1,k2:v2", extra labels on every metric (5.x).
	MetricsLabel string `prop:"metricsLabel"`
	// MetricsInDelta: 5.x then labels every series aggregation="delta" (and
	// exports OTLP deltas); Prometheus series stay cumulative either way.
	MetricsInDelta bool `prop:"metricsInDelta"`
}

// NewExporterConfig returns the 5.x defaults.
func NewExporterConfig() ExporterConfig {
	return ExporterConfig{MetricsExporterType: ExporterDisable, MetricsPromExporterPort: DefaultPromExporterPort}
}

// ExporterType normalises MetricsExporterType as 5.x's enum setter does:
// a name (any case) or an ordinal; anything else is DISABLE.
func (c ExporterConfig) ExporterType() string {
	t := strings.ToUpper(c.MetricsExporterType)
	if n, err := strconv.Atoi(t); err == nil {
		switch n {
		case 1:
			return ExporterOTLPGRPC
		case 2:
			return ExporterProm
		case 3:
			return ExporterLog
		}
		return ExporterDisable
	}
	switch t {
	case ExporterOTLPGRPC, ExporterProm, ExporterLog:
		return t
	}
	return ExporterDisable
}

// Validate reports a port out of range (Java fails to bind it). An
// unknown exporter type is not an error: it means DISABLE.
func (c ExporterConfig) Validate() error {
	if c.MetricsPromExporterPort < 0 || c.MetricsPromExporterPort > 65535 {
		return fmt.Errorf("metrics: bad metricsPromExporterPort %d", c.MetricsPromExporterPort)
	}
	return nil
}

// Labels parses MetricsLabel ("k1:v1,k2:v2") as 5.x does: empty items
// are skipped, an item that is not exactly key:value is dropped and
// reported in bad.
func (c ExporterConfig) Labels() (labels map[string]string, bad []string) {
	labels = map[string]string{}
	for _, item := range strings.Split(c.MetricsLabel, ",") {
		if item == "" {
			continue
		}
		kv := strings.Split(item, ":")
		if len(kv) != 2 {
			bad = append(bad, item)
			continue
		}
		labels[kv[0]] = kv[1]
	}
	return labels, bad
}

// ConstLabels are the labels 5.x puts on every metric of a node: the
// metricsLabel pairs, aggregation="delta" with metricsInDelta, then
// node_type, cluster (when not empty) and node_id (BrokerMetricsManager.
// init's labelMap).
func (c ExporterConfig) ConstLabels(nodeType, cluster, nodeID string) map[string]string {
	l, _ := c.Labels()
	if c.MetricsInDelta {
		l[LabelAggregation] = AggregationDelta
	}
	l[LabelNodeType] = nodeType
	if cluster != "" {
		l[LabelCluster] = cluster
	}
	l[LabelNodeID] = nodeID
	return l
}
