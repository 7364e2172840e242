package proxy

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

// Proxy modes (5.x ProxyMode).
const (
	ModeCluster = "cluster"
	ModeLocal   = "local"
)

// Config mirrors the part of 5.x's ProxyConfig (rmq-proxy.json) this proxy
// implements; JSON keys are Java's field names, defaults Java's.
type Config struct {
	RocketMQClusterName string `json:"rocketMQClusterName"` // DEFAULT_CLUSTER_NAME
	ProxyName           string `json:"proxyName"`
	NamesrvAddr         string `json:"namesrvAddr"` // ';'-separated; NAMESRV_ADDR by default
	ProxyMode           string `json:"proxyMode"`   // CLUSTER or LOCAL, case-insensitive
	GRPCServerPort      int    `json:"grpcServerPort"`
	// GRPCServerHost is ours: the listen host ("" = all interfaces). The
	// address advertised in routes is the request's endpoints host.
	GRPCServerHost            string `json:"grpcServerHost"`
	GRPCShutdownTimeSeconds   int64  `json:"grpcShutdownTimeSeconds"`
	GRPCMaxInboundMessageSize int    `json:"grpcMaxInboundMessageSize"`

	MaxMessageSize               int   `json:"maxMessageSize"`
	EnableMessageBodyEmptyCheck  bool  `json:"enableMessageBodyEmptyCheck"`
	MaxUserPropertySize          int   `json:"maxUserPropertySize"`
	UserPropertyMaxNum           int   `json:"userPropertyMaxNum"`
	MaxMessageGroupSize          int   `json:"maxMessageGroupSize"`
	MaxDelayTimeMills            int64 `json:"maxDelayTimeMills"`
	MaxTransactionRecoverySecond int64 `json:"maxTransactionRecoverySecond"`
	EnableTopicMessageTypeCheck  bool  `json:"enableTopicMessageTypeCheck"`
	UseEndpointPortFromRequest   bool  `json:"useEndpointPortFromRequest"`

	GRPCClientProducerMaxAttempts          int   `json:"grpcClientProducerMaxAttempts"`
	GRPCClientProducerBackoffInitialMillis int64 `json:"grpcClientProducerBackoffInitialMillis"`
	GRPCClientProducerBackoffMaxMillis     int64 `json:"grpcClientProducerBackoffMaxMillis"`
	GRPCClientProducerBackoffMultiplier    int   `json:"grpcClientProducerBackoffMultiplier"`

	GRPCClientConsumerMinLongPollingTimeoutMillis int64 `json:"grpcClientConsumerMinLongPollingTimeoutMillis"`
	GRPCClientConsumerMaxLongPollingTimeoutMillis int64 `json:"grpcClientConsumerMaxLongPollingTimeoutMillis"`
	GRPCClientConsumerLongPollingBatchSize        int   `json:"grpcClientConsumerLongPollingBatchSize"`
	MinInvisibleTimeMillsForRecv                  int64 `json:"minInvisibleTimeMillsForRecv"`
	MaxInvisibleTimeMills                         int64 `json:"maxInvisibleTimeMills"`
	GRPCClientIdleTimeMills                       int64 `json:"grpcClientIdleTimeMills"`

	// Auto renewal of push consumers' receipt handles (5.x's names):
	// auto_renew receives pop with DefaultInvisibleTimeMills; every
	// RenewSchedulePeriodMillis the handles due within RenewAheadTimeMillis
	// are extended, for at most RenewMaxTimeMillis.
	EnableProxyAutoRenew      bool  `json:"enableProxyAutoRenew"`
	DefaultInvisibleTimeMills int64 `json:"defaultInvisibleTimeMills"`
	RenewAheadTimeMillis      int64 `json:"renewAheadTimeMillis"`
	RenewMaxTimeMillis        int64 `json:"renewMaxTimeMillis"`
	RenewSchedulePeriodMillis int64 `json:"renewSchedulePeriodMillis"`

	// TLS of the gRPC listener: the tls.* settings of the remoting server
	// (tls.server.mode disabled|permissive|enforcing, cert and key paths)
	// are passed by the command; when both paths below are set they choose
	// the gRPC port's certificate instead (StartLocal / StartCluster).
	TLSTestModeEnable bool   `json:"tlsTestModeEnable"`
	TLSKeyPath        string `json:"tlsKeyPath"`
	TLSCertPath       string `json:"tlsCertPath"`

	// EnableACL (5.x's enableACL) makes a cluster-mode proxy authenticate
	// gRPC calls against $RocketmqHome/conf/plain_acl.yml (+ conf/acl/);
	// local mode follows its broker's aclEnable instead. Ours:
	// rocketmqHome, ROCKETMQ_HOME by default.
	EnableACL    bool   `json:"enableACL"`
	RocketmqHome string `json:"rocketmqHome"`
}

// NewConfig returns 5.x's ProxyConfig defaults.
func NewConfig() *Config {
	host, _ := os.Hostname()
	if host == "" {
		host = "DEFAULT_PROXY"
	}
	return &Config{
		RocketMQClusterName:          "DefaultCluster",
		ProxyName:                    host,
		NamesrvAddr:                  os.Getenv("NAMESRV_ADDR"),
		RocketmqHome:                 os.Getenv("ROCKETMQ_HOME"),
		ProxyMode:                    "CLUSTER",
		GRPCServerPort:               8081,
		GRPCShutdownTimeSeconds:      30,
		GRPCMaxInboundMessageSize:    130 * 1024 * 1024,
		MaxMessageSize:               4 * 1024 * 1024,
		EnableMessageBodyEmptyCheck:  true,
		MaxUserPropertySize:          16 * 1024,
		UserPropertyMaxNum:           128,
		MaxMessageGroupSize:          64,
		MaxDelayTimeMills:            (24 * time.Hour).Milliseconds(),
		MaxTransactionRecoverySecond: 3600,
		EnableTopicMessageTypeCheck:  true,

		GRPCClientProducerMaxAttempts:          3,
		GRPCClientProducerBackoffInitialMillis: 10,
		GRPCClientProducerBackoffMaxMillis:     1000,
		GRPCClientProducerBackoffMultiplier:    2,

		GRPCClientConsumerMinLongPollingTimeoutMillis: 5000,
		GRPCClientConsumerMaxLongPollingTimeoutMillis: 20000,
		GRPCClientConsumerLongPollingBatchSize:        32,
		MinInvisibleTimeMillsForRecv:                  10000,
		MaxInvisibleTimeMills:                         (12 * time.Hour).Milliseconds(),
		GRPCClientIdleTimeMills:                       120000,
		EnableProxyAutoRenew:                          true,
		DefaultInvisibleTimeMills:                     60_000,
		RenewAheadTimeMillis:                          10_000,
		RenewMaxTimeMillis:                            3 * 3600 * 1000,
		RenewSchedulePeriodMillis:                     5_000,
		TLSTestModeEnable:                             true,
	}
}

// LoadConfigFile reads a 5.x rmq-proxy.json over the defaults (just the
// defaults when path is empty). Unknown keys are ignored, as Java's
// fastjson binding does.
func LoadConfigFile(path string) (*Config, error) {
	cfg := NewConfig()
	if path == "" {
		return cfg, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("proxy: read config: %w", err)
	}
	if err := json.Unmarshal(data, cfg); err != nil {
		return nil, fmt.Errorf("proxy: parse config %s: %w", path, err)
	}
	return cfg, cfg.Validate()
}

// Mode returns ModeCluster or ModeLocal.
func (c *Config) Mode() string { return strings.ToLower(c.ProxyMode) }

// NamesrvAddrs splits NamesrvAddr.
func (c *Config) NamesrvAddrs() []string { return splitAddrs(c.NamesrvAddr) }

// Validate reports every bad value at once.
func (c *Config) Validate() error {
	var errs []string
	if m := c.Mode(); m != ModeCluster && m != ModeLocal {
		errs = append(errs, fmt.Sprintf("proxyMode %q is neither CLUSTER nor LOCAL", c.ProxyMode))
	}
	if c.GRPCServerPort < 0 || c.GRPCServerPort > 65535 {
		errs = append(errs, fmt.Sprintf("grpcServerPort %d out of range", c.GRPCServerPort))
	}
	if c.RenewSchedulePeriodMillis <= 0 {
		errs = append(errs, fmt.Sprintf("renewSchedulePeriodMillis %d is not positive", c.RenewSchedulePeriodMillis))
	}
	if len(errs) > 0 {
		return fmt.Errorf("proxy: invalid config: %s", strings.Join(errs, "; "))
	}
	return nil
}

func splitAddrs(s string) []string {
	var out []string
	for _, a := range strings.Split(s, ";") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}
