package metrics

import (
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rocketmq-go/rmq/remoting/code"
)

// Label names and values of 5.x RemotingMetricsConstant and
// BrokerMetricsConstant shared by the broker and the name server.
const (
	LabelCluster       = "cluster"         // BrokerMetricsConstant.LABEL_CLUSTER_NAME
	LabelNodeType      = "node_type"       // BrokerMetricsConstant.LABEL_NODE_TYPE
	LabelNodeID        = "node_id"         // BrokerMetricsConstant.LABEL_NODE_ID
	LabelAggregation   = "aggregation"     // BrokerMetricsConstant.LABEL_AGGREGATION
	LabelProtocolType  = "protocol_type"   // RemotingMetricsConstant.LABEL_PROTOCOL_TYPE
	LabelRequestCode   = "request_code"    // RemotingMetricsConstant.LABEL_REQUEST_CODE
	LabelResponseCode  = "response_code"   // RemotingMetricsConstant.LABEL_RESPONSE_CODE
	LabelIsLongPolling = "is_long_polling" // RemotingMetricsConstant.LABEL_IS_LONG_POLLING
	LabelResult        = "result"          // RemotingMetricsConstant.LABEL_RESULT

	ProtocolRemoting   = "remoting"             // RemotingMetricsConstant.PROTOCOL_TYPE_REMOTING
	ResultSuccess      = "success"              // RemotingMetricsConstant.RESULT_SUCCESS
	ResultOneway       = "oneway"               // RemotingMetricsConstant.RESULT_ONEWAY
	ResultWriteFailed  = "write_channel_failed" // RemotingMetricsConstant.RESULT_WRITE_CHANNEL_FAILED
	NodeTypeBroker     = "broker"               // BrokerMetricsConstant.NODE_TYPE_BROKER
	AggregationDelta   = "delta"                // BrokerMetricsConstant.AGGREGATION_DELTA
	NodeTypeNameserver = "nameserver"           // ours: 5.x's name server exports no metrics
)

// RPCLatencyName is 5.x's HISTOGRAM_RPC_LATENCY "rocketmq_rpc_latency"
// (unit milliseconds) as the OpenTelemetry Prometheus exporter names it.
const RPCLatencyName = "rocketmq_rpc_latency_milliseconds"

// rpcBuckets are RemotingMetricsManager.getMetricsView's bounds (ms).
var rpcBuckets = []float64{1, 3, 5, 7, 10, 100, 1000, 2000, 3000}

// RPCLatency is the rocketmq_rpc_latency histogram. Observe takes the
// remoting observer's facts; label children are resolved once per
// (request code, response code, kind) and cached, so an observation is a
// read-locked map lookup (no allocation) and an atomic update.
type RPCLatency struct {
	vec *prometheus.HistogramVec

	mu       sync.RWMutex // guards children
	children map[rpcKey]prometheus.Observer
}

type rpcKey struct {
	req, resp int32
	result    uint8 // 0 success, 1 oneway, 2 write failed
	longPoll  bool
}

// NewRPCLatency registers the histogram in reg with constLabels (cluster,
// node_type, node_id, metricsLabel) on every series.
func NewRPCLatency(reg prometheus.Registerer, constLabels prometheus.Labels) *RPCLatency {
	vec := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:        RPCLatencyName,
		Help:        "Rpc latency",
		Buckets:     rpcBuckets,
		ConstLabels: constLabels,
	}, []string{LabelProtocolType, LabelRequestCode, LabelResponseCode, LabelIsLongPolling, LabelResult})
	reg.MustRegister(vec)
	return &RPCLatency{vec: vec, children: map[rpcKey]prometheus.Observer{}}
}

// Observe records one answered request; suspended is 5.x's
// request.isSuspended() (a parked long-polling pull).
func (r *RPCLatency) Observe(reqCode, respCode int32, latency time.Duration, oneway, suspended, writeFailed bool) {
	k := rpcKey{req: reqCode, resp: respCode, longPoll: suspended}
	switch {
	case oneway:
		k.result = 1
	case writeFailed:
		k.result = 2
	}
	r.mu.RLock()
	o := r.children[k]
	r.mu.RUnlock()
	if o == nil {
		o = r.child(k)
	}
	o.Observe(float64(latency) / float64(time.Millisecond))
}

// MaxRPCSeries bounds the histogram's label sets, as OpenTelemetry's
// default cardinality limit (2000) bounds 5.x's: a client sending made-up
// request codes cannot grow the broker's memory without end. Label sets
// beyond it are recorded under request_code and response_code "overflow".
const MaxRPCSeries = 2000

// overflowCode marks the shared overflow child's key.
const overflowCode = -1 << 31

func (r *RPCLatency) child(k rpcKey) prometheus.Observer {
	r.mu.RLock()
	full := len(r.children) >= MaxRPCSeries
	r.mu.RUnlock()
	if full {
		k = rpcKey{req: overflowCode, resp: overflowCode}
		r.mu.RLock()
		o := r.children[k]
		r.mu.RUnlock()
		if o != nil {
			return o
		}
	}
	result := ResultSuccess
	switch k.result {
	case 1:
		result = ResultOneway
	case 2:
		result = ResultWriteFailed
	}
	req, resp := RequestCodeDesc(k.req), ResponseCodeDesc(k.resp)
	if k.req == overflowCode {
		req, resp = "overflow", "overflow"
	}
	o := r.vec.WithLabelValues(ProtocolRemoting, req, resp, strconv.FormatBool(k.longPoll), result)
	r.mu.Lock()
	r.children[k] = o
	r.mu.Unlock()
	return o
}

// RequestCodeDesc is 5.x RemotingHelper.getRequestCodeDesc: the RequestCode
// constant's name in lower case, or the number.
func RequestCodeDesc(c int32) string { return strings.ToLower(code.RequestName(c)) }

// ResponseCodeDesc is RemotingHelper.getResponseCodeDesc.
func ResponseCodeDesc(c int32) string { return strings.ToLower(code.ResponseName(c)) }
