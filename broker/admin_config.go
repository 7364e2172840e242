package broker

// UPDATE_BROKER_CONFIG (25): which updated settings take effect at once.
// Java's Configuration.update binds the properties onto the registered
// config objects in place, so every setting read at use time changes the
// running broker's behaviour, and the ones consumed at start (thread pools,
// listeners, schedules) only matter at the next start. Here BrokerConfig is
// an immutable snapshot swapped whole, and every BrokerConfig setting is
// read from the live snapshot at use except restartBrokerKeys;
// MessageStoreConfig settings the running store can take are handed to it
// (store.IsLiveConfigKey), the others and every netty setting are persisted
// and shown by GET_BROKER_CONFIG but apply at the next start. The answer is
// Java's SUCCESS without remark (mqadmin prints only "success"); the keys
// waiting for a restart are logged.

import (
	"sort"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/props"
)

// restartBrokerKeys are the BrokerConfig settings this broker consumes only
// at start. All but transactionCheckInterval are consumed at start by Java
// 4.9.8 too (executors, TopicConfigManager's constructor, the name-server
// address list and address-server schedule); Java re-reads
// transactionCheckInterval between check passes, while the check service
// here keeps the period it started with.
var restartBrokerKeys = map[string]bool{
	"sendMessageThreadPoolNums": true, "putMessageFutureThreadPoolNums": true, "pullMessageThreadPoolNums": true,
	"processReplyMessageThreadPoolNums": true, "queryMessageThreadPoolNums": true, "adminBrokerThreadPoolNums": true,
	"clientManageThreadPoolNums": true, "consumerManageThreadPoolNums": true, "heartbeatThreadPoolNums": true,
	"endTransactionThreadPoolNums": true, "sendThreadPoolQueueCapacity": true, "putThreadPoolQueueCapacity": true,
	"pullThreadPoolQueueCapacity": true, "replyThreadPoolQueueCapacity": true, "queryThreadPoolQueueCapacity": true,
	"clientManagerThreadPoolQueueCapacity": true, "consumerManagerThreadPoolQueueCapacity": true,
	"heartbeatThreadPoolQueueCapacity": true, "endTransactionPoolQueueCapacity": true,
	"namesrvAddr": true, "fetchNamesrvAddrByAddressServer": true, "defaultTopicQueueNums": true,
	"clusterTopicEnable": true, "brokerTopicEnable": true, "traceTopicEnable": true, "msgTraceTopicName": true,
	"transactionCheckInterval": true,
	"enableDetailStat":         true, // BrokerStatsManager's enableQueueStat, fixed at construction
	"aclEnable":                true, // the validator is built at start (BrokerController.initialAcl)
}

// restartKeys returns, sorted, the keys of an update (as split by
// splitUpdate) that take effect here only at the next start: the
// restartBrokerKeys among the BrokerConfig keys, and every known key the
// running store does not apply.
func restartKeys(brokerKV, otherKV map[string]string) []string {
	var out []string
	for k := range brokerKV {
		if restartBrokerKeys[k] {
			out = append(out, k)
		}
	}
	for k := range otherKV {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// logRestartKeys tells the operator which updated settings wait for a
// restart (the answer itself is Java's plain SUCCESS).
func (p *adminProcessor) logRestartKeys(keys []string) {
	if len(keys) > 0 {
		p.lg.Warn("update broker config: persisted, applied at the next start", zap.Strings("keys", keys))
	}
}

// liveStore is the part of the store that takes live settings
// (store.DefaultMessageStore implements it).
type liveStore interface {
	LiveConfig() *store.MessageStoreConfig
	UpdateConfig(next *store.MessageStoreConfig) error
}

// maxMessageSize is maxMessageSize in force (UPDATE_BROKER_CONFIG changes it live).
func (b *Broker) maxMessageSize() int {
	if ls, ok := b.store.(liveStore); ok {
		return ls.LiveConfig().MaxMessageSize
	}
	return b.storeCfg.MaxMessageSize
}

// isLiveStoreKey reports whether the running store applies key.
func (p *adminProcessor) isLiveStoreKey(key string) bool {
	_, ok := p.b.store.(liveStore)
	return ok && store.IsLiveConfigKey(key)
}

// splitUpdate sorts an update's keys: BrokerConfig keys, store keys the
// running store applies, and the other known keys (store and netty, shown
// and persisted but applied at the next start). Unknown keys are logged and
// dropped, as Java's Configuration.update ignores them.
func (p *adminProcessor) splitUpdate(m map[string]string) (brokerKV, liveStoreKV, otherKV map[string]string) {
	brokerKV, liveStoreKV, otherKV = map[string]string{}, map[string]string{}, map[string]string{}
	var unknown []string
	for k, v := range m {
		_, isBroker := props.Get(k, p.b.Config())
		_, known := props.Get(k, p.configTargets()...)
		switch {
		case isBroker:
			brokerKV[k] = v
		case p.isLiveStoreKey(k):
			liveStoreKV[k] = v
		case known:
			otherKV[k] = v
		default:
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		p.lg.Warn("update broker config: unknown keys ignored", zap.Strings("keys", unknown))
	}
	return brokerKV, liveStoreKV, otherKV
}

// updateLiveStore binds kv onto a copy of the store's live settings and
// hands it to the store.
func (p *adminProcessor) updateLiveStore(kv map[string]string) error {
	ls, ok := p.b.store.(liveStore)
	if !ok || len(kv) == 0 {
		return nil
	}
	next := *ls.LiveConfig()
	if warns := props.Bind(kv, &next); len(warns) > 0 {
		p.lg.Warn("update broker config", zap.Strings("warnings", warns))
	}
	return ls.UpdateConfig(&next)
}
