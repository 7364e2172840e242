package broker

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/props"
	"github.com/rocketmq-go/rmq/remoting"
)

// javaBrokerConfigKeys lists the property keys of every setter of 4.9.8
// BrokerConfig (what MixAll.properties2Object can set), in declaration order.
var javaBrokerConfigKeys = []string{
	"rocketmqHome", "namesrvAddr", "brokerIP1", "brokerIP2", "brokerName", "brokerClusterName", "brokerId",
	"brokerPermission", "defaultTopicQueueNums", "autoCreateTopicEnable", "clusterTopicEnable", "brokerTopicEnable",
	"autoCreateSubscriptionGroup", "messageStorePlugIn", "msgTraceTopicName", "traceTopicEnable",
	"sendMessageThreadPoolNums", "putMessageFutureThreadPoolNums", "pullMessageThreadPoolNums",
	"processReplyMessageThreadPoolNums", "queryMessageThreadPoolNums", "adminBrokerThreadPoolNums",
	"clientManageThreadPoolNums", "consumerManageThreadPoolNums", "heartbeatThreadPoolNums",
	"endTransactionThreadPoolNums", "flushConsumerOffsetInterval", "flushConsumerOffsetHistoryInterval",
	"rejectTransactionMessage", "fetchNamesrvAddrByAddressServer", "sendThreadPoolQueueCapacity",
	"putThreadPoolQueueCapacity", "pullThreadPoolQueueCapacity", "replyThreadPoolQueueCapacity",
	"queryThreadPoolQueueCapacity", "clientManagerThreadPoolQueueCapacity", "consumerManagerThreadPoolQueueCapacity",
	"heartbeatThreadPoolQueueCapacity", "endTransactionPoolQueueCapacity", "filterServerNums", "longPollingEnable",
	"shortPollingTimeMills", "notifyConsumerIdsChangedEnable", "highSpeedMode", "commercialEnable",
	"commercialTimerCount", "commercialTransCount", "commercialBigCount", "commercialBaseCount", "transferMsgByHeap",
	"maxDelayTime", "regionId", "registerBrokerTimeoutMills", "slaveReadEnable", "disableConsumeIfConsumerReadSlowly",
	"consumerFallbehindThreshold", "brokerFastFailureEnable", "waitTimeMillsInSendQueue", "waitTimeMillsInPullQueue",
	"waitTimeMillsInHeartbeatQueue", "waitTimeMillsInTransactionQueue", "startAcceptSendRequestTimeStamp", "traceOn",
	"enableCalcFilterBitMap", "expectConsumerNumUseFilter", "maxErrorRateOfBloomFilter", "filterDataCleanTimeSpan",
	"filterSupportRetry", "enablePropertyFilter", "compressedRegister", "forceRegister", "registerNameServerPeriod",
	"transactionTimeOut", "transactionCheckMax", "transactionCheckInterval", "aclEnable", "storeReplyMessageEnable",
	"enableDetailStat", "autoDeleteUnusedStats", "isolateLogEnable", "configBlackList",
}

func TestBrokerConfigKeysMatchJava(t *testing.T) {
	got := props.Keys(NewBrokerConfig())
	want := slices.Concat(javaBrokerConfigKeys, controllerBrokerConfigKeys, popBrokerConfigKeys)
	if !slices.Equal(got, want) {
		t.Fatalf("keys differ from Java's BrokerConfig:\n got %v\nwant %v", got, want)
	}
}

func TestBrokerConfigImportantFields(t *testing.T) {
	var buf bytes.Buffer
	props.Print(&buf, true, NewBrokerConfig())
	var keys []string
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		k, _, _ := strings.Cut(line, "=")
		keys = append(keys, k)
	}
	want := []string{"namesrvAddr", "brokerIP1", "brokerName", "brokerClusterName", "brokerId",
		"autoCreateTopicEnable", "autoCreateSubscriptionGroup", "msgTraceTopicName", "traceTopicEnable",
		"rejectTransactionMessage", "fetchNamesrvAddrByAddressServer", "transactionTimeOut", "transactionCheckMax",
		"transactionCheckInterval", "aclEnable"}
	if !slices.Equal(keys, want) {
		t.Fatalf("important: %v", keys)
	}
}

func TestBrokerConfigDefaults(t *testing.T) {
	t.Setenv(EnvNamesrvAddr, "127.0.0.1:9876;127.0.0.2:9876")
	c := NewBrokerConfig()
	checks := map[string]string{
		"brokerClusterName": "DefaultCluster", "brokerId": "0", "brokerPermission": "6",
		"defaultTopicQueueNums": "8", "autoCreateTopicEnable": "true", "autoCreateSubscriptionGroup": "true",
		"slaveReadEnable": "false", "longPollingEnable": "true", "shortPollingTimeMills": "1000",
		"waitTimeMillsInSendQueue": "200", "registerNameServerPeriod": "30000", "forceRegister": "true",
		"compressedRegister": "false", "enablePropertyFilter": "false", "transactionTimeOut": "6000",
		"transactionCheckInterval": "60000", "transactionCheckMax": "15", "traceTopicEnable": "false",
		"msgTraceTopicName": "RMQ_SYS_TRACE_TOPIC", "aclEnable": "false", "flushConsumerOffsetInterval": "5000",
		"consumerFallbehindThreshold": "17179869184", "regionId": "DefaultRegion",
		"namesrvAddr": "127.0.0.1:9876;127.0.0.2:9876", "configBlackList": "configBlackList;brokerConfigPath",
		"clusterTopicEnable": "true", "brokerTopicEnable": "true", "adminBrokerThreadPoolNums": "16",
		"pullThreadPoolQueueCapacity": "100000", "filterDataCleanTimeSpan": "86400000",
	}
	for k, want := range checks {
		if got, ok := props.Get(k, c); !ok || got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if c.BrokerName == "" || c.BrokerIP1 == "" || c.BrokerIP1 != c.BrokerIP2 {
		t.Errorf("host-derived defaults: name %q ip1 %q ip2 %q", c.BrokerName, c.BrokerIP1, c.BrokerIP2)
	}
	if c.EndTransactionThreadPoolNums < 8 || c.SendMessageThreadPoolNums > 4 || c.SendMessageThreadPoolNums < 1 {
		t.Errorf("cpu-derived pools: %+v", c)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("defaults must validate: %v", err)
	}
	if got := c.NamesrvAddrList(); len(got) != 2 || got[1] != "127.0.0.2:9876" {
		t.Fatalf("namesrv list %v", got)
	}
}

// TestBrokerConfigExampleConfsLoad: Java's distribution/conf broker files
// bind to BrokerConfig + MessageStoreConfig + NettyServerConfig with no
// warning at all.
func TestBrokerConfigExampleConfsLoad(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "conf", "*"))
	if err != nil || len(files) < 7 {
		t.Fatalf("example confs: %v %v", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			fh, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			defer fh.Close()
			m, err := props.Parse(fh)
			if err != nil {
				t.Fatal(err)
			}
			bc, msc, nsc := NewBrokerConfig(), store.NewMessageStoreConfig(), remoting.NewNettyServerConfig()
			if w := props.Bind(m, bc, msc, nsc); len(w) != 0 {
				t.Fatalf("warnings: %v", w)
			}
			if bc.BrokerClusterName != "DefaultCluster" || !strings.HasPrefix(bc.BrokerName, "broker-") {
				t.Fatalf("cluster %q name %q", bc.BrokerClusterName, bc.BrokerName)
			}
			wantSlave := strings.HasSuffix(f, "-s.properties")
			if (bc.BrokerID != 0) != wantSlave {
				t.Fatalf("brokerId %d for %s", bc.BrokerID, f)
			}
			if err := bc.Validate(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestBrokerConfigBindJavaQuirks(t *testing.T) {
	c := NewBrokerConfig()
	w := props.Bind(map[string]string{
		"autoCreateTopicEnable": "TRUE",
		"slaveReadEnable":       "true ", // 4.9.8 does not trim: not "true"
		"brokerId":              "x",     // bad value keeps the default
		"noSuchKey":             "1",
	}, c)
	if !c.AutoCreateTopicEnable || c.SlaveReadEnable || c.BrokerID != 0 {
		t.Fatalf("bound %+v", c)
	}
	if len(w) != 2 {
		t.Fatalf("want a bad-value and an unknown-key warning, got %v", w)
	}
}

func TestBrokerConfigValidate(t *testing.T) {
	c := NewBrokerConfig()
	c.NamesrvAddr = "127.0.0.1:9876;nohostport"
	c.BrokerName = ""
	c.BrokerID = -1
	c.DefaultTopicQueueNums = 0
	c.SendMessageThreadPoolNums = 0
	err := c.Validate()
	if err == nil {
		t.Fatal("invalid config accepted")
	}
	for _, want := range []string{"nohostport", "brokerName", "brokerId", "defaultTopicQueueNums", "sendMessageThreadPoolNums"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %s: %v", want, err)
		}
	}
}

func TestBrokerConfigRegisterPeriodClamp(t *testing.T) {
	c := NewBrokerConfig()
	for in, want := range map[int]time.Duration{1000: 10 * time.Second, 30000: 30 * time.Second, 600000: time.Minute} {
		c.RegisterNameServerPeriod = in
		if got := c.RegisterPeriod(); got != want {
			t.Errorf("%d: %v", in, got)
		}
	}
}

func TestBrokerConfigBlackList(t *testing.T) {
	c := NewBrokerConfig()
	if !c.IsBlackListed("brokerConfigPath") || !c.IsBlackListed("configBlackList") || c.IsBlackListed("brokerName") {
		t.Fatal("black list")
	}
	cp := c.Clone()
	cp.BrokerName = "other"
	if c.BrokerName == "other" {
		t.Fatal("clone shares state")
	}
}

// TestBrokerConfigDefaultsMatchGoldenBroker compares the defaults with the
// GET_BROKER_CONFIG answer of the recorded Java broker (2 processors),
// except the keys that run set in its broker.properties.
func TestBrokerConfigDefaultsMatchGoldenBroker(t *testing.T) {
	dir := os.Getenv("RMQ_GOLDEN_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "golden")
	}
	frame, err := os.ReadFile(filepath.Join(dir, "frames", "json", "001217-broker2client-resp-SUCCESS.bin"))
	if err != nil {
		t.Skipf("golden frame not found: %v", err)
	}
	hl := int(frame[5])<<16 | int(frame[6])<<8 | int(frame[7])
	m, err := props.Parse(bytes.NewReader(frame[8+hl:]))
	if err != nil {
		t.Fatal(err)
	}
	overridden := map[string]bool{"namesrvAddr": true, "brokerName": true, "brokerIP1": true, "brokerIP2": true,
		"rocketmqHome": true, "transactionCheckInterval": true, "transactionTimeOut": true,
		"registerNameServerPeriod": true, "forceRegister": true, "enablePropertyFilter": true}
	c := newBrokerConfig(2)
	for _, k := range javaBrokerConfigKeys {
		javaVal, ok := m[k]
		if !ok {
			t.Errorf("%s missing from the Java broker's config", k)
			continue
		}
		if overridden[k] {
			continue
		}
		if got, _ := props.Get(k, c); got != javaVal {
			t.Errorf("%s = %q, Java %q", k, got, javaVal)
		}
	}
}
