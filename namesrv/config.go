package namesrv

import (
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/rocketmq-go/rmq/internal/metrics"
	"github.com/rocketmq-go/rmq/remoting"
)

// DefaultListenPort is the port NamesrvStartup forces on its NettyServerConfig.
const DefaultListenPort = 9876

// NamesrvConfig mirrors Java's org.apache.rocketmq.common.namesrv.NamesrvConfig
// (4.9.8), plus two 5.x liveness keys. Field comments cite the Java default.
type NamesrvConfig struct {
	// RocketmqHome: system property rocketmq.home.dir, else env ROCKETMQ_HOME.
	RocketmqHome string `prop:"rocketmqHome"`
	// KVConfigPath: ${user.home}/namesrv/kvConfig.json.
	KVConfigPath string `prop:"kvConfigPath"`
	// ConfigStorePath: ${user.home}/namesrv/namesrv.properties (set to the -c file).
	ConfigStorePath string `prop:"configStorePath"`
	// ProductEnvName: "center".
	ProductEnvName string `prop:"productEnvName"`
	// ClusterTest: false.
	ClusterTest bool `prop:"clusterTest"`
	// OrderMessageEnable: false; when true routes carry orderTopicConf from KV.
	OrderMessageEnable bool `prop:"orderMessageEnable"`
	// ConfigBlackList: "configBlackList;configStorePath;kvConfigPath".
	ConfigBlackList string `prop:"configBlackList"`
	// ScanNotActiveBrokerInterval (ms): 5.x key, default 5000 (4.9.8 scans every 10 s).
	ScanNotActiveBrokerInterval int64 `prop:"scanNotActiveBrokerInterval"`
	// BrokerChannelExpiredTime (ms): 4.9.8's BROKER_CHANNEL_EXPIRED_TIME 120000 made configurable.
	BrokerChannelExpiredTime int64 `prop:"brokerChannelExpiredTime"`
	// ConsoleListenAddr (our extension, no Java key): the web console's
	// HTTP address, e.g. 127.0.0.1:8080; empty (default) = no console.
	ConsoleListenAddr string `prop:"consoleListenAddr"`

	// EnableControllerInNamesrv: 5.x key, default false; true runs the
	// controller (package controller) in the name server's process,
	// configured by the same file's controller keys.
	EnableControllerInNamesrv bool `prop:"enableControllerInNamesrv"`

	// Metrics holds the metrics keys (metricsExporterType,
	// metricsPromExporterHost, metricsPromExporterPort, metricsLabel):
	// ours, as 5.x's name server exports no metrics; the broker's 5.x keys
	// and defaults. Not embedded, so GET_NAMESRV_CONFIG and -p show 4.9.8's
	// keys only; mqnamesrv binds &Metrics as an extra properties target.
	Metrics metrics.ExporterConfig

	// ProductEnvNamesrvAddr lists (";"-separated) the name servers that
	// clusterTest mode falls back to for unknown topics: the DefaultMQAdminExt
	// of ClusterTestRequestProcessor reads env NAMESRV_ADDR. Not a Java key.
	ProductEnvNamesrvAddr string
}

// NewNamesrvConfig returns the Java defaults, resolving user.home and
// ROCKETMQ_HOME like the Java field initialisers.
func NewNamesrvConfig() *NamesrvConfig {
	home, err := os.UserHomeDir()
	if err != nil {
		home = "."
	}
	return &NamesrvConfig{
		RocketmqHome:                os.Getenv("ROCKETMQ_HOME"),
		KVConfigPath:                filepath.Join(home, "namesrv", "kvConfig.json"),
		ConfigStorePath:             filepath.Join(home, "namesrv", "namesrv.properties"),
		ProductEnvName:              "center",
		ConfigBlackList:             "configBlackList;configStorePath;kvConfigPath",
		ScanNotActiveBrokerInterval: 5000,
		BrokerChannelExpiredTime:    120000,
		ProductEnvNamesrvAddr:       os.Getenv("NAMESRV_ADDR"),
		Metrics:                     metrics.NewExporterConfig(),
	}
}

// NewNettyServerConfig returns remoting defaults with NamesrvStartup's
// override listenPort=9876.
func NewNettyServerConfig() *remoting.NettyServerConfig {
	c := remoting.NewNettyServerConfig()
	c.ListenPort = DefaultListenPort
	return c
}

// Validate reports every problem of the configuration at once.
func (c *NamesrvConfig) Validate() error {
	var errs []error
	if c.ScanNotActiveBrokerInterval <= 0 {
		errs = append(errs, errors.New("namesrv: scanNotActiveBrokerInterval must be > 0"))
	}
	if c.BrokerChannelExpiredTime <= 0 {
		errs = append(errs, errors.New("namesrv: brokerChannelExpiredTime must be > 0"))
	}
	if c.KVConfigPath == "" {
		errs = append(errs, errors.New("namesrv: kvConfigPath is empty"))
	}
	errs = append(errs, c.Metrics.Validate())
	return errors.Join(errs...)
}

func (c *NamesrvConfig) scanInterval() time.Duration {
	return time.Duration(c.ScanNotActiveBrokerInterval) * time.Millisecond
}

func (c *NamesrvConfig) expiry() time.Duration {
	return time.Duration(c.BrokerChannelExpiredTime) * time.Millisecond
}
