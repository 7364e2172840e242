package broker

// AdminBrokerProcessor (broker/processor, 4.9.8): registration of every
// admin code this package serves, plus the topic and broker-config codes:
// UPDATE_AND_CREATE_TOPIC (17), DELETE_TOPIC_IN_BROKER (215),
// GET_ALL_TOPIC_CONFIG (21), GET_TOPIC_STATS_INFO (202), GET_TOPIC_CONFIG
// (351, 5.x), GET_BROKER_CONFIG (26), UPDATE_BROKER_CONFIG (25),
// GET_BROKER_RUNTIME_INFO (28) and GET_SYSTEM_TOPIC_LIST_FROM_BROKER (305).
// Group/offset codes are in admin_group.go, consumer-facing ones in
// admin_consumer.go, maintenance and disabled features in admin_misc.go.
//
// Java answers several admin codes with the remark createResponseCommand
// pre-fills ("not set any response code") left on a SUCCESS response; the
// golden frames show it for UPDATE_AND_CREATE_TOPIC and
// INVOKE_BROKER_TO_RESET_OFFSET, and it is reproduced there.

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/schedule"
	"github.com/rocketmq-go/rmq/broker/topic"
	"github.com/rocketmq-go/rmq/internal/props"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// remarkNotSet is the remark RemotingCommand.createResponseCommand(Class)
// puts on a fresh response; Java leaves it on some SUCCESS answers.
const remarkNotSet = "not set any response code"

// remarkSlaveModify is AdminBrokerProcessor.validateSlave's answer.
const remarkSlaveModify = "Can't modify topic or subscription group from slave broker, please execute it from master broker."

func init() { processorFamilies = append(processorFamilies, registerAdminProcessors) }

// adminProcessor is AdminBrokerProcessor.
type adminProcessor struct {
	b  *Broker
	lg *zap.Logger

	mu sync.Mutex // serializes Java's synchronized methods (topic/config updates); never held across I/O

	cfgVersion body.DataVersion  // Configuration's data version; guarded by mu
	overrides  map[string]string // updated store/netty values for GET_BROKER_CONFIG and the file; guarded by mu
	cfgSeq     int64             // config generation; guarded by mu

	persistMu    sync.Mutex // guards only broker.properties writes
	persistedSeq int64      // newest generation written; guarded by persistMu
}

func registerAdminProcessors(b *Broker) {
	p := &adminProcessor{b: b, lg: b.lg.Named("admin")}
	p.cfgVersion = body.DataVersion{Timestamp: time.Now().UnixMilli()}
	handlers := map[int32]remoting.ProcessorFunc{
		code.UpdateAndCreateTopic:         p.updateAndCreateTopic,
		code.DeleteTopicInBroker:          p.deleteTopic,
		code.GetAllTopicConfig:            p.getAllTopicConfig,
		code.GetTopicStatsInfo:            p.getTopicStatsInfo,
		code.GetTopicConfig:               p.getTopicConfig,
		code.GetBrokerConfig:              p.getBrokerConfig,
		code.UpdateBrokerConfig:           p.updateBrokerConfig,
		code.GetBrokerRuntimeInfo:         p.getBrokerRuntimeInfo,
		code.GetSystemTopicListFromBroker: p.getSystemTopicList,
	}
	p.addGroupHandlers(handlers)
	p.addConsumerHandlers(handlers)
	p.addMiscHandlers(handlers)
	p.addStatsHandlers(handlers)
	p.addQueryHandlers(handlers)
	for c, h := range handlers {
		b.registerProcessor(c, h, b.Pools.Admin, true)
	}
}

// success is a SUCCESS response without remark.
func success() *codec.RemotingCommand { return codec.NewResponse(code.Success, "") }

// checkSlave is validateSlave: a slave refuses changes.
func (p *adminProcessor) checkSlave() error {
	if p.b.IsSlave() {
		return wireError(code.SystemError, remarkSlaveModify)
	}
	return nil
}

// checkTopicName is TopicValidator.validateTopic plus isSystemTopic, as
// the admin topic codes apply them.
func (p *adminProcessor) checkTopicName(name string) error {
	if err := topic.ValidateTopic(name); err != nil {
		return validationError(err)
	}
	if err := p.b.topics.CheckSystemTopicConflict(name); err != nil {
		return validationError(err)
	}
	return nil
}

func (p *adminProcessor) updateAndCreateTopic(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	if err := p.checkSlave(); err != nil {
		return nil, err
	}
	var h header.CreateTopicRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	if err := p.checkTopicName(h.Topic); err != nil {
		return nil, err
	}
	tc := body.NewTopicConfig(h.Topic)
	tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm = h.ReadQueueNums, h.WriteQueueNums, h.Perm
	tc.TopicFilterType = h.TopicFilterType
	if h.TopicSysFlag != nil {
		tc.TopicSysFlag = *h.TopicSysFlag
	}
	p.mu.Lock()
	p.b.topics.UpdateTopicConfig(tc)
	dv := p.b.topics.DataVersion()
	p.mu.Unlock()
	// Java registers inside its synchronized method; the registration
	// (a network call) runs outside the lock here, still before the answer.
	p.b.RegisterIncrementBrokerData(tc, dv)
	p.lg.Info("update or create topic", zap.String("topic", h.Topic), zap.String("remoteAddr", ctx.Channel.RemoteAddr()))
	// Java writes topics.json before answering; UpdateTopicConfig has
	// journaled the change (same crash guarantee), the full rewrite follows.
	return codec.NewResponse(code.Success, remarkNotSet), nil
}

func (p *adminProcessor) deleteTopic(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	if err := p.checkSlave(); err != nil {
		return nil, err
	}
	var h header.DeleteTopicRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	if err := p.checkTopicName(h.Topic); err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.b.topics.DeleteTopicConfig(h.Topic)
	keep := p.topicNames()
	p.mu.Unlock()
	p.b.store.CleanUnusedTopic(keep)
	if p.b.Config().AutoDeleteUnusedStats {
		p.b.stats.OnTopicDeleted(h.Topic)
	}
	p.b.metrics.OnTopicDeleted(h.Topic) // no-op unless metrics are on
	return success(), nil
}

// topicNames is the key set of the topic table.
func (p *adminProcessor) topicNames() map[string]struct{} {
	snap := p.b.topics.Snapshot()
	keep := make(map[string]struct{}, len(snap))
	for name := range snap {
		keep[name] = struct{}{}
	}
	return keep
}

func (p *adminProcessor) getAllTopicConfig(_ *remoting.Context, _ *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	content := p.b.topics.Encode()
	if len(content) == 0 {
		return nil, wireError(code.SystemError, "No topic in this broker")
	}
	resp := emptyHeaderResponse()
	resp.Body = content
	return resp, nil
}

func (p *adminProcessor) getTopicStatsInfo(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.GetTopicStatsInfoRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	tc := p.b.topics.SelectTopicConfig(h.Topic)
	if tc == nil {
		return nil, wireError(code.TopicNotExist, "topic["+h.Topic+"] not exist")
	}
	st := body.TopicStatsTable{OffsetTable: make(map[body.MessageQueue]body.TopicOffset, tc.WriteQueueNums)}
	s := p.b.store
	for i := int32(0); i < tc.WriteQueueNums; i++ {
		minOff := max(s.MinOffsetInQueue(h.Topic, i), 0)
		maxOff := max(s.MaxOffsetInQueue(h.Topic, i), 0)
		var ts int64
		if maxOff > 0 {
			ts = s.MessageStoreTimeStamp(h.Topic, i, maxOff-1)
		}
		mq := body.MessageQueue{Topic: h.Topic, BrokerName: p.b.Config().BrokerName, QueueID: i}
		st.OffsetTable[mq] = body.TopicOffset{MinOffset: minOff, MaxOffset: maxOff, LastUpdateTimestamp: ts}
	}
	resp := success()
	resp.Body = st.Encode()
	return resp, nil
}

// getTopicConfig is 5.x GET_TOPIC_CONFIG: the topic's config as a
// TopicConfigAndQueueMapping without mapping detail.
func (p *adminProcessor) getTopicConfig(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.GetTopicConfigRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	tc := p.b.topics.SelectTopicConfig(h.Topic)
	if tc == nil {
		return nil, wireError(code.TopicNotExist, "No topic in this broker. topic: "+h.Topic)
	}
	resp := success()
	resp.Body = topicConfigAndQueueMappingJSON(tc)
	return resp, nil
}

// topicConfigAndQueueMappingJSON writes 5.x's TopicConfigAndQueueMapping as
// fastjson does (alphabetical, empty attributes, null mapping omitted).
func topicConfigAndQueueMappingJSON(tc *body.TopicConfig) []byte {
	b := []byte(`{"attributes":{},"order":`)
	b = strconv.AppendBool(b, tc.Order)
	b = append(b, `,"perm":`...)
	b = strconv.AppendInt(b, int64(tc.Perm), 10)
	b = append(b, `,"readQueueNums":`...)
	b = strconv.AppendInt(b, int64(tc.ReadQueueNums), 10)
	b = append(b, `,"topicFilterType":`...)
	b = body.AppendString(b, tc.TopicFilterType, false)
	b = append(b, `,"topicName":`...)
	b = body.AppendString(b, tc.TopicName, false)
	b = append(b, `,"topicSysFlag":`...)
	b = strconv.AppendInt(b, int64(tc.TopicSysFlag), 10)
	b = append(b, `,"writeQueueNums":`...)
	b = strconv.AppendInt(b, int64(tc.WriteQueueNums), 10)
	return append(b, '}')
}

// configTargets are the objects Java's Configuration registers, in order.
func (p *adminProcessor) configTargets() []any {
	return []any{p.b.Config(), p.b.srvCfg, p.b.cliCfg, p.b.storeCfg}
}

func (p *adminProcessor) getBrokerConfig(_ *remoting.Context, _ *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	p.mu.Lock()
	dv := p.cfgVersion
	content := p.configContentLocked()
	p.mu.Unlock()
	resp := success()
	if content != "" {
		resp.Body = []byte(content)
	}
	resp.SetExt("version", string(dv.Encode()))
	return resp, nil
}

// formatConfig is Configuration.getAllConfigsFormatString: key=value lines
// of every setting. MixAll.object2Properties skips null values: the String
// settings whose Java default is null are left out while empty here.
func formatConfig(targets ...any) string {
	var sb strings.Builder
	for _, line := range strings.SplitAfter(props.Format(targets...), "\n") {
		key, value, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "=")
		if line == "" || (value == "" && nullDefaultKeys[key]) {
			continue
		}
		sb.WriteString(line)
	}
	return sb.String()
}

// nullDefaultKeys are the 4.9.8 config String fields initialised to null
// (BrokerConfig, MessageStoreConfig), or to a system property/env value
// that may be unset.
var nullDefaultKeys = map[string]bool{
	"namesrvAddr": true, "rocketmqHome": true, "storePathCommitLog": true, "haMasterAddress": true,
	"dLegerGroup": true, "dLegerPeers": true, "dLegerSelfId": true, "preferredLeaderId": true,
	"readOnlyCommitLogStorePaths": true, "storePathDLedgerCommitLog": true,
}

// updateBrokerConfig applies a properties body to validated copies of the
// broker configuration and of the store's live settings, swaps them in and
// persists the whole configuration (see admin_config.go for what applies
// at once and what at the next start).
func (p *adminProcessor) updateBrokerConfig(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	if req.Body == nil {
		return success(), nil
	}
	m, err := props.ParseString(string(req.Body))
	if err != nil {
		return nil, wireError(code.SystemError, "string2Properties error")
	}
	p.lg.Info("update broker config", zap.String("remoteAddr", ctx.Channel.RemoteAddr()), zap.Int("keys", len(m)))
	p.mu.Lock()
	content, seq, restart, err := p.applyConfigLocked(m)
	p.mu.Unlock()
	if err != nil {
		return nil, err
	}
	p.logRestartKeys(restart)
	p.persistConfig(content, seq)
	if _, ok := m["brokerPermission"]; ok {
		p.b.RegisterBrokerAll(false)
	}
	return success(), nil
}

// applyConfigLocked validates and swaps in the update; it returns the new
// file content, its generation and the keys waiting for the next start.
func (p *adminProcessor) applyConfigLocked(m map[string]string) (content string, seq int64, restart []string, err error) {
	cur := p.b.Config()
	for k := range m {
		if cur.IsBlackListed(k) {
			return "", 0, nil, wireError(code.NoPermission, "Can not update config in black list.")
		}
	}
	brokerKV, liveStoreKV, otherKV := p.splitUpdate(m)
	next := cur.Clone()
	if warns := props.Bind(brokerKV, next); len(warns) > 0 {
		p.lg.Warn("update broker config", zap.Strings("warnings", warns))
	}
	if err := next.Validate(); err != nil {
		return "", 0, nil, wireError(code.SystemError, err.Error())
	}
	if err := p.updateLiveStore(liveStoreKV); err != nil {
		return "", 0, nil, wireError(code.SystemError, err.Error())
	}
	if err := p.b.SetConfig(next); err != nil {
		return "", 0, nil, wireError(code.SystemError, err.Error())
	}
	for _, kv := range []map[string]string{liveStoreKV, otherKV} {
		for k, v := range kv {
			if p.overrides == nil {
				p.overrides = map[string]string{}
			}
			p.overrides[k] = v
		}
	}
	p.cfgVersion.Timestamp = time.Now().UnixMilli()
	p.cfgVersion.Counter++
	p.cfgSeq++
	return p.configContentLocked(), p.cfgSeq, restartKeys(brokerKV, otherKV), nil
}

// configContentLocked is the configuration text with pending overrides.
func (p *adminProcessor) configContentLocked() string {
	var sb strings.Builder
	seen := map[string]bool{}
	for _, line := range strings.SplitAfter(formatConfig(p.configTargets()...), "\n") {
		key, _, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "=")
		if v, ok := p.overrides[key]; ok {
			line, seen[key] = key+"="+v+"\n", true
		}
		sb.WriteString(line)
	}
	keys := make([]string, 0, len(p.overrides))
	for k := range p.overrides {
		if !seen[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		sb.WriteString(k + "=" + p.overrides[k] + "\n")
	}
	return sb.String()
}

// persistConfig writes generation seq of the configuration to
// <storePathRootDir>/config/broker.properties (Java: brokerConfigPath,
// ~/store/config/broker.properties by default), never an older one over a
// newer one.
func (p *adminProcessor) persistConfig(content string, seq int64) {
	p.persistMu.Lock()
	defer p.persistMu.Unlock()
	if seq <= p.persistedSeq {
		return
	}
	path := filepath.Join(p.b.storeCfg.ConfigDir(), "broker.properties")
	if err := writeFileAtomic(path, []byte(content)); err != nil {
		p.lg.Error("persist broker config failed", zap.String("file", path), zap.Error(err))
		return
	}
	p.persistedSeq = seq
}

// writeFileAtomic writes data through a temporary file and a rename.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func (p *adminProcessor) getBrokerRuntimeInfo(_ *remoting.Context, _ *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	kv := body.KVTable{Table: p.runtimeInfo()}
	resp := success()
	resp.Body = kv.Encode()
	return resp, nil
}

// runtimeInfo is prepareRuntimeInfo: the store's statistics plus the
// broker's version, pool queues and put/get totals.
func (p *adminProcessor) runtimeInfo() map[string]string {
	b, cfg := p.b, p.b.Config()
	m := b.store.RuntimeInfo()
	if m == nil {
		m = map[string]string{}
	}
	i := strconv.Itoa
	m["brokerVersionDesc"] = "V4_9_8"
	m["brokerVersion"] = i(int(code.CurrentVersion))
	b.statsRuntimeInfo(m) // admin_stats.go
	b.poolRuntimeInfo(m)
	m["dispatchBehindBytes"] = strconv.FormatInt(b.store.DispatchBehindBytes(), 10)
	m["pageCacheLockTimeMills"] = strconv.FormatInt(b.store.LockTimeMills(), 10)
	m["earliestMessageTimeStamp"] = strconv.FormatInt(b.earliestMessageTime(), 10)
	m["startAcceptSendRequestTimeStamp"] = strconv.FormatInt(cfg.StartAcceptSendRequestTimeStamp, 10)
	if t := b.DelayOffsets(); t != nil {
		for level, off := range t.Snapshot() {
			maxOff := b.store.MaxOffsetInQueue(schedule.ScheduleTopic, schedule.DelayLevelToQueueID(level))
			m["scheduleMessageOffset_"+i(int(level))] = strconv.FormatInt(off, 10) + "," + strconv.FormatInt(maxOff, 10)
		}
	}
	if cl := b.store.CommitLog(); cl != nil {
		m["remainHowManyDataToFlush"] = humanReadableByteCount(max(cl.MaxOffset()-cl.FlushedWhere(), 0))
	}
	if total, free, ok := diskSpace(b.storeCfg.StorePathRootDir); ok {
		m["commitLogDirCapacity"] = "Total : " + humanReadableByteCount(total) + ", Free : " + humanReadableByteCount(free) + "."
	}
	if _, ok := m["remainTransientStoreBufferNumbs"]; !ok {
		m["remainTransientStoreBufferNumbs"] = strconv.Itoa(runtimeMaxInt)
	}
	return m
}

// earliestMessageTime is DefaultMessageStore.getEarliestMessageTime():
// Java reads 2 * maxMessageSize bytes at the CommitLog min offset to pick
// the store time, and that read fails (-1) unless that many bytes are
// readable in the first file, so small stores report -1.
func (b *Broker) earliestMessageTime() int64 {
	minPhy, maxPhy := b.store.MinPhyOffset(), b.store.MaxPhyOffset()
	fileSize := int64(b.storeCfg.MappedFileSizeCommitLog)
	if fileSize <= 0 {
		return -1
	}
	fileEnd := minPhy - minPhy%fileSize + fileSize
	if minPhy+2*int64(b.maxMessageSize()) > min(fileEnd, maxPhy) {
		return -1
	}
	return b.store.EarliestMessageTimeOfStore()
}

// runtimeMaxInt is Integer.MAX_VALUE, what remainTransientStoreBufferNumbs
// reports without a transient store pool.
const runtimeMaxInt = 1<<31 - 1

// humanReadableByteCount is MixAll.humanReadableByteCount(bytes, false).
func humanReadableByteCount(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	exp := int(math.Log(float64(n)) / math.Log(1024))
	return fmt.Sprintf("%.1f %ciB", float64(n)/math.Pow(1024, float64(exp)), "KMGTPE"[exp-1])
}

// diskSpace is File.getTotalSpace / getUsableSpace of dir.
func diskSpace(dir string) (total, free int64, ok bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, 0, false
	}
	return int64(st.Blocks) * int64(st.Bsize), int64(st.Bavail) * int64(st.Bsize), true // Bsize is int32 on 32-bit x86
}

// poolRuntimeInfo adds the request queues' sizes, capacities and head
// waits (headSlowTimeMills4*ThreadPoolQueue) to the runtime info. A size
// counts the pool's intake queue and the timedExecutor behind it, as
// printWaterMark does; the head wait is that of the timedExecutor.
func (b *Broker) poolRuntimeInfo(m map[string]string) {
	cfg := b.Config()
	i := strconv.Itoa
	ms := func(p *remoting.Pool) string { return strconv.FormatInt(b.HeadWait(p).Milliseconds(), 10) }
	m["sendThreadPoolQueueSize"] = i(b.QueueLen(b.Pools.Send))
	m["sendThreadPoolQueueCapacity"] = i(cfg.SendThreadPoolQueueCapacity)
	m["pullThreadPoolQueueSize"] = i(b.QueueLen(b.Pools.Pull))
	m["pullThreadPoolQueueCapacity"] = i(cfg.PullThreadPoolQueueCapacity)
	m["queryThreadPoolQueueSize"] = i(b.QueueLen(b.Pools.Query))
	m["queryThreadPoolQueueCapacity"] = i(cfg.QueryThreadPoolQueueCapacity)
	m["EndTransactionQueueSize"] = i(b.QueueLen(b.Pools.EndTransaction))
	m["EndTransactionThreadPoolQueueCapacity"] = i(cfg.EndTransactionPoolQueueCapacity)
	m["sendThreadPoolQueueHeadWaitTimeMills"] = ms(b.Pools.Send)
	m["pullThreadPoolQueueHeadWaitTimeMills"] = ms(b.Pools.Pull)
	m["queryThreadPoolQueueHeadWaitTimeMills"] = ms(b.Pools.Query)
}

// getSystemTopicList is GET_SYSTEM_TOPIC_LIST_FROM_BROKER: TopicValidator's
// system topic set.
func (p *adminProcessor) getSystemTopicList(_ *remoting.Context, _ *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	names := []string{topic.AutoCreateTopicKeyTopic, topic.ScheduleTopic, topic.BenchmarkTopic, topic.TransHalfTopic,
		topic.TraceTopic, topic.TransOpHalfTopic, topic.TransCheckMaxTimeTopic, topic.SelfTestTopic,
		topic.OffsetMovedEventTopic}
	body.SortJavaHashOrder(names)
	tl := body.TopicList{TopicList: names}
	resp := success()
	resp.Body = tl.Encode()
	return resp, nil
}
