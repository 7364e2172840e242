package broker

import (
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/rocketmq-go/rmq/internal/metrics"
)

// BrokerConfig mirrors org.apache.rocketmq.common.BrokerConfig of 4.9.8: every
// field the Java class exposes through a setter, under its Java property key,
// in Java declaration order (so -p prints in the same order). Java int fields
// are Go int, Java long fields int64. `,important` marks @ImportantField.
type BrokerConfig struct {
	RocketmqHome                           string `prop:"rocketmqHome"`
	NamesrvAddr                            string `prop:"namesrvAddr,important"`
	BrokerIP1                              string `prop:"brokerIP1,important"`
	BrokerIP2                              string `prop:"brokerIP2"`
	BrokerName                             string `prop:"brokerName,important"`
	BrokerClusterName                      string `prop:"brokerClusterName,important"`
	BrokerID                               int64  `prop:"brokerId,important"`
	BrokerPermission                       int    `prop:"brokerPermission"`
	DefaultTopicQueueNums                  int    `prop:"defaultTopicQueueNums"`
	AutoCreateTopicEnable                  bool   `prop:"autoCreateTopicEnable,important"`
	ClusterTopicEnable                     bool   `prop:"clusterTopicEnable"`
	BrokerTopicEnable                      bool   `prop:"brokerTopicEnable"`
	AutoCreateSubscriptionGroup            bool   `prop:"autoCreateSubscriptionGroup,important"`
	MessageStorePlugIn                     string `prop:"messageStorePlugIn"`
	MsgTraceTopicName                      string `prop:"msgTraceTopicName,important"`
	TraceTopicEnable                       bool   `prop:"traceTopicEnable,important"`
	SendMessageThreadPoolNums              int    `prop:"sendMessageThreadPoolNums"`
	PutMessageFutureThreadPoolNums         int    `prop:"putMessageFutureThreadPoolNums"`
	PullMessageThreadPoolNums              int    `prop:"pullMessageThreadPoolNums"`
	ProcessReplyMessageThreadPoolNums      int    `prop:"processReplyMessageThreadPoolNums"`
	QueryMessageThreadPoolNums             int    `prop:"queryMessageThreadPoolNums"`
	AdminBrokerThreadPoolNums              int    `prop:"adminBrokerThreadPoolNums"`
	ClientManageThreadPoolNums             int    `prop:"clientManageThreadPoolNums"`
	ConsumerManageThreadPoolNums           int    `prop:"consumerManageThreadPoolNums"`
	HeartbeatThreadPoolNums                int    `prop:"heartbeatThreadPoolNums"`
	EndTransactionThreadPoolNums           int    `prop:"endTransactionThreadPoolNums"`
	FlushConsumerOffsetInterval            int    `prop:"flushConsumerOffsetInterval"`
	FlushConsumerOffsetHistoryInterval     int    `prop:"flushConsumerOffsetHistoryInterval"`
	RejectTransactionMessage               bool   `prop:"rejectTransactionMessage,important"`
	FetchNamesrvAddrByAddressServer        bool   `prop:"fetchNamesrvAddrByAddressServer,important"`
	SendThreadPoolQueueCapacity            int    `prop:"sendThreadPoolQueueCapacity"`
	PutThreadPoolQueueCapacity             int    `prop:"putThreadPoolQueueCapacity"`
	PullThreadPoolQueueCapacity            int    `prop:"pullThreadPoolQueueCapacity"`
	ReplyThreadPoolQueueCapacity           int    `prop:"replyThreadPoolQueueCapacity"`
	QueryThreadPoolQueueCapacity           int    `prop:"queryThreadPoolQueueCapacity"`
	ClientManagerThreadPoolQueueCapacity   int    `prop:"clientManagerThreadPoolQueueCapacity"`
	ConsumerManagerThreadPoolQueueCapacity int    `prop:"consumerManagerThreadPoolQueueCapacity"`
	HeartbeatThreadPoolQueueCapacity       int    `prop:"heartbeatThreadPoolQueueCapacity"`
	EndTransactionPoolQueueCapacity        int    `prop:"endTransactionPoolQueueCapacity"`
	FilterServerNums                       int    `prop:"filterServerNums"`
	LongPollingEnable                      bool   `prop:"longPollingEnable"`
	ShortPollingTimeMills                  int64  `prop:"shortPollingTimeMills"`
	NotifyConsumerIdsChangedEnable         bool   `prop:"notifyConsumerIdsChangedEnable"`
	HighSpeedMode                          bool   `prop:"highSpeedMode"`
	CommercialEnable                       bool   `prop:"commercialEnable"`
	CommercialTimerCount                   int    `prop:"commercialTimerCount"`
	CommercialTransCount                   int    `prop:"commercialTransCount"`
	CommercialBigCount                     int    `prop:"commercialBigCount"`
	CommercialBaseCount                    int    `prop:"commercialBaseCount"`
	TransferMsgByHeap                      bool   `prop:"transferMsgByHeap"`
	MaxDelayTime                           int    `prop:"maxDelayTime"`
	RegionID                               string `prop:"regionId"`
	RegisterBrokerTimeoutMills             int    `prop:"registerBrokerTimeoutMills"`
	SlaveReadEnable                        bool   `prop:"slaveReadEnable"`
	DisableConsumeIfConsumerReadSlowly     bool   `prop:"disableConsumeIfConsumerReadSlowly"`
	ConsumerFallbehindThreshold            int64  `prop:"consumerFallbehindThreshold"`
	BrokerFastFailureEnable                bool   `prop:"brokerFastFailureEnable"`
	WaitTimeMillsInSendQueue               int64  `prop:"waitTimeMillsInSendQueue"`
	WaitTimeMillsInPullQueue               int64  `prop:"waitTimeMillsInPullQueue"`
	WaitTimeMillsInHeartbeatQueue          int64  `prop:"waitTimeMillsInHeartbeatQueue"`
	WaitTimeMillsInTransactionQueue        int64  `prop:"waitTimeMillsInTransactionQueue"`
	StartAcceptSendRequestTimeStamp        int64  `prop:"startAcceptSendRequestTimeStamp"`
	TraceOn                                bool   `prop:"traceOn"`
	EnableCalcFilterBitMap                 bool   `prop:"enableCalcFilterBitMap"`
	ExpectConsumerNumUseFilter             int    `prop:"expectConsumerNumUseFilter"`
	MaxErrorRateOfBloomFilter              int    `prop:"maxErrorRateOfBloomFilter"`
	FilterDataCleanTimeSpan                int64  `prop:"filterDataCleanTimeSpan"`
	FilterSupportRetry                     bool   `prop:"filterSupportRetry"`
	EnablePropertyFilter                   bool   `prop:"enablePropertyFilter"`
	CompressedRegister                     bool   `prop:"compressedRegister"`
	ForceRegister                          bool   `prop:"forceRegister"`
	RegisterNameServerPeriod               int    `prop:"registerNameServerPeriod"`
	TransactionTimeOut                     int64  `prop:"transactionTimeOut,important"`
	TransactionCheckMax                    int    `prop:"transactionCheckMax,important"`
	TransactionCheckInterval               int64  `prop:"transactionCheckInterval,important"`
	ACLEnable                              bool   `prop:"aclEnable,important"`
	StoreReplyMessageEnable                bool   `prop:"storeReplyMessageEnable"`
	EnableDetailStat                       bool   `prop:"enableDetailStat"`
	AutoDeleteUnusedStats                  bool   `prop:"autoDeleteUnusedStats"`
	IsolateLogEnable                       bool   `prop:"isolateLogEnable"`
	ConfigBlackList                        string `prop:"configBlackList"`

	// Metrics holds the 5.x metrics keys (metricsExporterType,
	// metricsPromExporterHost, metricsPromExporterPort, metricsLabel). Not
	// embedded, so they stay out of 4.9.8's key set (-p, GET_BROKER_CONFIG):
	// the binaries bind &Metrics as an extra properties target.
	Metrics metrics.ExporterConfig

	// Controller mode (automatic failover), Apache 5.3.3 BrokerConfig. Not
	// in 4.9.8: a 4.9.8 broker ignores these keys.
	EnableControllerMode            bool   `prop:"enableControllerMode"`            // enableControllerMode
	ControllerAddr                  string `prop:"controllerAddr"`                  // controllerAddr: "host:port;host:port"
	FetchControllerAddrByDNSLookup  bool   `prop:"fetchControllerAddrByDnsLookup"`  // fetchControllerAddrByDnsLookup (not implemented: warned)
	SyncBrokerMetadataPeriod        int64  `prop:"syncBrokerMetadataPeriod"`        // GET_REPLICA_INFO period, ms
	CheckSyncStateSetPeriod         int64  `prop:"checkSyncStateSetPeriod"`         // master: SyncStateSet check period, ms
	SyncControllerMetadataPeriod    int64  `prop:"syncControllerMetadataPeriod"`    // controller leader lookup period, ms
	ControllerHeartBeatTimeoutMills int64  `prop:"controllerHeartBeatTimeoutMills"` // liveness timeout sent with each heartbeat, ms
	BrokerElectionPriority          int    `prop:"brokerElectionPriority"`          // lower is preferred in elections
	BrokerHeartbeatInterval         int    `prop:"brokerHeartbeatInterval"`         // controller heartbeat period, ms
	SendHeartbeatTimeoutMillis      int    `prop:"sendHeartbeatTimeoutMillis"`      // heartbeat request timeout, ms
	EnableSlaveActingMaster         bool   `prop:"enableSlaveActingMaster"`         // not implemented: warned when true

	// PopConfig: 5.x POP consumption keys (config_pop.go).
	PopConfig
}

// Java constants the defaults and validation refer to.
const (
	// DefaultClusterName is BrokerConfig.brokerClusterName's default.
	DefaultClusterName = "DefaultCluster"
	// DefaultBrokerName is what BrokerConfig.localHostName falls back to.
	DefaultBrokerName = "DEFAULT_BROKER"
	// DefaultTraceTopic is TopicValidator.RMQ_SYS_TRACE_TOPIC.
	DefaultTraceTopic = "RMQ_SYS_TRACE_TOPIC"
	// DefaultRegionID is MixAll.DEFAULT_TRACE_REGION_ID.
	DefaultRegionID = "DefaultRegion"
	// MasterID is MixAll.MASTER_ID.
	MasterID = 0
	// EnvNamesrvAddr and EnvRocketmqHome are the environment variables Java reads.
	EnvNamesrvAddr  = "NAMESRV_ADDR"
	EnvRocketmqHome = "ROCKETMQ_HOME"
)

// NewBrokerConfig returns the 4.9.8 defaults. Values that Java derives from
// the machine (CPU count, host name, local address) or from the environment
// (NAMESRV_ADDR, ROCKETMQ_HOME; the -D system properties are not modelled)
// are computed the same way here.
func NewBrokerConfig() *BrokerConfig {
	return newBrokerConfig(runtime.NumCPU())
}

// newBrokerConfig builds the defaults for a machine with cpus processors
// (Runtime.availableProcessors in Java).
func newBrokerConfig(cpus int) *BrokerConfig {
	ip := LocalAddress()
	send := min(cpus, 4)
	return &BrokerConfig{
		RocketmqHome:                           os.Getenv(EnvRocketmqHome),
		NamesrvAddr:                            os.Getenv(EnvNamesrvAddr),
		BrokerIP1:                              ip,
		BrokerIP2:                              ip,
		BrokerName:                             localHostName(),
		BrokerClusterName:                      DefaultClusterName,
		BrokerID:                               MasterID,
		BrokerPermission:                       permRead | permWrite,
		DefaultTopicQueueNums:                  8,
		AutoCreateTopicEnable:                  true,
		ClusterTopicEnable:                     true,
		BrokerTopicEnable:                      true,
		AutoCreateSubscriptionGroup:            true,
		MsgTraceTopicName:                      DefaultTraceTopic,
		SendMessageThreadPoolNums:              send,
		PutMessageFutureThreadPoolNums:         min(cpus, 4),
		PullMessageThreadPoolNums:              16 + cpus*2,
		ProcessReplyMessageThreadPoolNums:      16 + cpus*2,
		QueryMessageThreadPoolNums:             8 + cpus,
		AdminBrokerThreadPoolNums:              16,
		ClientManageThreadPoolNums:             32,
		ConsumerManageThreadPoolNums:           32,
		HeartbeatThreadPoolNums:                min(32, cpus),
		EndTransactionThreadPoolNums:           max(8+cpus*2, send*4),
		FlushConsumerOffsetInterval:            5000,
		FlushConsumerOffsetHistoryInterval:     60000,
		SendThreadPoolQueueCapacity:            10000,
		PutThreadPoolQueueCapacity:             10000,
		PullThreadPoolQueueCapacity:            100000,
		ReplyThreadPoolQueueCapacity:           10000,
		QueryThreadPoolQueueCapacity:           20000,
		ClientManagerThreadPoolQueueCapacity:   1000000,
		ConsumerManagerThreadPoolQueueCapacity: 1000000,
		HeartbeatThreadPoolQueueCapacity:       50000,
		EndTransactionPoolQueueCapacity:        100000,
		LongPollingEnable:                      true,
		ShortPollingTimeMills:                  1000,
		NotifyConsumerIdsChangedEnable:         true,
		CommercialEnable:                       true,
		CommercialTimerCount:                   1,
		CommercialTransCount:                   1,
		CommercialBigCount:                     1,
		CommercialBaseCount:                    1,
		TransferMsgByHeap:                      true,
		MaxDelayTime:                           40,
		RegionID:                               DefaultRegionID,
		RegisterBrokerTimeoutMills:             6000,
		ConsumerFallbehindThreshold:            16 << 30,
		BrokerFastFailureEnable:                true,
		WaitTimeMillsInSendQueue:               200,
		WaitTimeMillsInPullQueue:               5000,
		WaitTimeMillsInHeartbeatQueue:          31000,
		WaitTimeMillsInTransactionQueue:        3000,
		TraceOn:                                true,
		ExpectConsumerNumUseFilter:             32,
		MaxErrorRateOfBloomFilter:              20,
		FilterDataCleanTimeSpan:                24 * 3600 * 1000,
		ForceRegister:                          true,
		RegisterNameServerPeriod:               30000,
		TransactionTimeOut:                     6000,
		TransactionCheckMax:                    15,
		TransactionCheckInterval:               60000,
		StoreReplyMessageEnable:                true,
		EnableDetailStat:                       true,
		ConfigBlackList:                        "configBlackList;brokerConfigPath",
		Metrics:                                metrics.NewExporterConfig(),
		// 5.3.3 BrokerConfig field initialisers.
		SyncBrokerMetadataPeriod:        5 * 1000,
		CheckSyncStateSetPeriod:         5 * 1000,
		SyncControllerMetadataPeriod:    10 * 1000,
		ControllerHeartBeatTimeoutMills: 10 * 1000,
		BrokerElectionPriority:          math.MaxInt32,
		BrokerHeartbeatInterval:         1000,
		SendHeartbeatTimeoutMillis:      1000,
		PopConfig:                       newPopConfig(),
	}
}

// PermName bits (common/constant/PermName.java).
const (
	permInherit = 1
	permWrite   = 2
	permRead    = 4
)

// Clone returns an independent copy (the struct has only value fields).
func (c *BrokerConfig) Clone() *BrokerConfig {
	cp := *c
	return &cp
}

// RegisterPeriod is the register-to-namesrv interval the broker really uses:
// Java clamps registerNameServerPeriod to [10 s, 60 s] when scheduling.
func (c *BrokerConfig) RegisterPeriod() time.Duration {
	ms := max(10000, min(c.RegisterNameServerPeriod, 60000))
	return time.Duration(ms) * time.Millisecond
}

// NamesrvAddrList splits namesrvAddr on ';' as the broker does, dropping blanks.
func (c *BrokerConfig) NamesrvAddrList() []string {
	var out []string
	for _, a := range strings.Split(c.NamesrvAddr, ";") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

// IsBlackListed reports whether key is in configBlackList, the keys
// UPDATE_BROKER_CONFIG must refuse to change.
func (c *BrokerConfig) IsBlackListed(key string) bool {
	for _, k := range strings.Split(c.ConfigBlackList, ";") {
		if strings.TrimSpace(k) == key {
			return true
		}
	}
	return false
}

// Validate collects every problem that would make Java's BrokerStartup exit
// or leave the broker unusable. Positive-only settings that Java would accept
// but then fail on (pool sizes, queue numbers) are checked too.
func (c *BrokerConfig) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf("broker: "+format, a...)) }
	for _, a := range c.NamesrvAddrList() {
		if _, port, err := net.SplitHostPort(a); err != nil || !validPort(port) {
			bad("namesrvAddr %q: want ip:port", a)
		}
	}
	if c.BrokerName == "" {
		bad("brokerName is empty")
	}
	if c.BrokerClusterName == "" {
		bad("brokerClusterName is empty")
	}
	switch {
	case c.EnableControllerMode:
		errs = append(errs, c.validateControllerMode()...)
	case c.BrokerID < 0:
		bad("brokerId %d is negative", c.BrokerID)
	}
	if c.BrokerPermission < 0 || c.BrokerPermission > 15 {
		bad("brokerPermission %d out of range", c.BrokerPermission)
	}
	if c.DefaultTopicQueueNums <= 0 {
		bad("defaultTopicQueueNums %d must be positive", c.DefaultTopicQueueNums)
	}
	if c.TraceTopicEnable && c.MsgTraceTopicName == "" {
		bad("msgTraceTopicName is empty")
	}
	errs = append(errs, c.validatePools()...)
	errs = append(errs, c.Metrics.Validate())
	return errors.Join(errs...)
}

// validateControllerMode checks the 5.x controller-mode keys. The brokerId
// may be anything (5.3 quick start: -1): the controller assigns it.
func (c *BrokerConfig) validateControllerMode() []error {
	var errs []error
	addrs := c.ControllerAddrList()
	if len(addrs) == 0 {
		errs = append(errs, errors.New("broker: enableControllerMode needs controllerAddr"))
	}
	for _, a := range addrs {
		if _, port, err := net.SplitHostPort(a); err != nil || !validPort(port) {
			errs = append(errs, fmt.Errorf("broker: controllerAddr %q: want ip:port", a))
		}
	}
	for _, p := range []struct {
		key string
		v   int64
	}{
		{"syncBrokerMetadataPeriod", c.SyncBrokerMetadataPeriod},
		{"checkSyncStateSetPeriod", c.CheckSyncStateSetPeriod},
		{"syncControllerMetadataPeriod", c.SyncControllerMetadataPeriod},
		{"controllerHeartBeatTimeoutMills", c.ControllerHeartBeatTimeoutMills},
		{"brokerHeartbeatInterval", int64(c.BrokerHeartbeatInterval)},
		{"sendHeartbeatTimeoutMillis", int64(c.SendHeartbeatTimeoutMillis)},
	} {
		if p.v <= 0 {
			errs = append(errs, fmt.Errorf("broker: %s %d must be positive", p.key, p.v))
		}
	}
	return errs
}

// ControllerAddrList splits controllerAddr on ';' as 5.x ReplicasManager
// does, dropping blanks.
func (c *BrokerConfig) ControllerAddrList() []string {
	var out []string
	for _, a := range strings.Split(c.ControllerAddr, ";") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

// Unimplemented lists the settings that are accepted (5.x files load) but
// have no effect here; New logs each as a warning.
func (c *BrokerConfig) Unimplemented() []string {
	var out []string
	if c.FetchControllerAddrByDNSLookup {
		out = append(out, "fetchControllerAddrByDnsLookup=true is not implemented: controllerAddr is used as a list of ip:port")
	}
	if c.EnableSlaveActingMaster {
		out = append(out, "enableSlaveActingMaster=true is not implemented: slaves do not act as master")
	}
	if c.EnablePopMessageThreshold {
		out = append(out, "enablePopMessageThreshold=true is not implemented: pops are not refused above popInflightMessageThreshold")
	}
	return out
}

func (c *BrokerConfig) validatePools() []error {
	var errs []error
	for _, p := range []struct {
		key string
		v   int
	}{
		{"sendMessageThreadPoolNums", c.SendMessageThreadPoolNums},
		{"putMessageFutureThreadPoolNums", c.PutMessageFutureThreadPoolNums},
		{"pullMessageThreadPoolNums", c.PullMessageThreadPoolNums},
		{"queryMessageThreadPoolNums", c.QueryMessageThreadPoolNums},
		{"adminBrokerThreadPoolNums", c.AdminBrokerThreadPoolNums},
		{"clientManageThreadPoolNums", c.ClientManageThreadPoolNums},
		{"consumerManageThreadPoolNums", c.ConsumerManageThreadPoolNums},
		{"heartbeatThreadPoolNums", c.HeartbeatThreadPoolNums},
		{"endTransactionThreadPoolNums", c.EndTransactionThreadPoolNums},
		{"sendThreadPoolQueueCapacity", c.SendThreadPoolQueueCapacity},
		{"pullThreadPoolQueueCapacity", c.PullThreadPoolQueueCapacity},
		{"flushConsumerOffsetInterval", c.FlushConsumerOffsetInterval},
	} {
		if p.v <= 0 {
			errs = append(errs, fmt.Errorf("broker: %s %d must be positive", p.key, p.v))
		}
	}
	return errs
}

func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n > 0 && n < 65536
}

// localHostName mirrors BrokerConfig.localHostName: the host name, or
// DEFAULT_BROKER when it cannot be determined.
func localHostName() string {
	if h, err := os.Hostname(); err == nil && h != "" {
		return h
	}
	return DefaultBrokerName
}

// LocalAddress mirrors RemotingUtil.getLocalAddress: among the addresses
// of non-bridge interfaces, the first IPv4 one that is neither 127.0.x.x nor
// 192.168.x.x, else the last IPv4 one, else the first IPv6 one (in
// brackets, as normalizeHostAddress writes it), else 127.0.0.1.
func LocalAddress() string {
	ifaces, err := net.Interfaces()
	if err != nil {
		return "127.0.0.1"
	}
	var v4, v6 []string
	for _, ifc := range ifaces {
		if isBridge(ifc.Name) {
			continue
		}
		addrs, err := ifc.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			ipn, ok := a.(*net.IPNet)
			if !ok || ipn.IP.IsLoopback() {
				continue
			}
			if ip4 := ipn.IP.To4(); ip4 != nil {
				v4 = append(v4, ip4.String())
			} else {
				v6 = append(v6, "["+ipn.IP.String()+"]")
			}
		}
	}
	for _, ip := range v4 {
		if !strings.HasPrefix(ip, "127.0") && !strings.HasPrefix(ip, "192.168") {
			return ip
		}
	}
	switch {
	case len(v4) > 0:
		return v4[len(v4)-1]
	case len(v6) > 0:
		return v6[0]
	}
	return "127.0.0.1"
}

// isBridge is RemotingUtil.isBridge: Linux exposes bridges as
// /sys/class/net/<name>/bridge.
func isBridge(name string) bool {
	_, err := os.Stat("/sys/class/net/" + name + "/bridge")
	return err == nil
}
