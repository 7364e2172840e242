package broker

// SEND_MESSAGE (10), SEND_MESSAGE_V2 (310), SEND_BATCH_MESSAGE (320) and
// CONSUMER_SEND_MSG_BACK (36): mirrors SendMessageProcessor and
// AbstractSendMessageProcessor (broker/processor, 4.9.8), with the half
// message rewrite of TransactionalMessageBridge.parseHalfMessageInner.
//
// Requests run on the send timedExecutor (BrokerFastFailure: registered on
// Pools.Send, see registerProcessor); the store
// append completes asynchronously and the answer goes out through
// ctx.Respond, so no worker waits for a SYNC_FLUSH or a slave.

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/broker/topic"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// dlqNumsPerGroup is MixAll.DLQ_NUMS_PER_GROUP.
const dlqNumsPerGroup = 1

func init() { processorFamilies = append(processorFamilies, registerSendProcessors) }

func registerSendProcessors(b *Broker) {
	p := remoting.ProcessorFunc(b.processSend) // runs behind the send timedExecutor
	for _, c := range []int32{code.SendMessage, code.SendMessageV2, code.SendBatchMessage, code.ConsumerSendMsgBack} {
		b.registerProcessor(c, p, b.Pools.Send, true)
	}
	rp := remoting.ProcessorFunc(b.processReply)
	for _, c := range []int32{code.SendReplyMessage, code.SendReplyMessageV2} {
		b.registerProcessor(c, rp, b.Pools.Reply, true)
	}
}

// rejectSend is SendMessageProcessor.rejectRequest: the OS page cache is
// busy (the transient store pool is not modelled).
func (b *Broker) rejectSend() bool { return b.store.IsOSPageCacheBusy() }

func (b *Broker) processSend(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	if req.Code == code.ConsumerSendMsgBack {
		return b.consumerSendMsgBack(ctx, req)
	}
	// No extFields map (remoting decodes sends lazily) and h on the stack.
	var h header.SendMessageRequestHeader
	if ok, err := header.DecodeSendRequestInto(&h, req); !ok || err != nil {
		if err == nil {
			err = fmt.Errorf("request code %d has no send header", req.Code)
		}
		return nil, err
	}
	var resp *codec.RemotingCommand
	var err error
	if h.Batch {
		resp, err = b.sendBatch(ctx, req, &h)
	} else {
		resp, err = b.sendOne(ctx, req, &h)
	}
	if resp == nil && err == nil {
		// Stored or storing: the answer comes from the store's callback,
		// which holds m and ctx, not req (m's body and strings are the
		// frame's and the header string's, not req's memory), and with
		// (nil, nil) no caller up the stack (ACL check, timed executor,
		// remoting dispatch) reads req again.
		codec.Release(req)
	}
	return resp, err
}

// newSendResponse is preSend's response: MSG_REGION and TRACE_ON are on
// every answer, errors included.
func (b *Broker) newSendResponse(c int32, remark string) *codec.RemotingCommand {
	cfg := b.Config()
	resp := codec.NewResponse(c, remark)
	// Sized for the stored answer's msgId, queueId and queueOffset too.
	resp.ExtFields = make(map[string]string, 5)
	resp.ExtFields[message.PropertyMsgRegion] = cfg.RegionID
	resp.ExtFields[message.PropertyTraceSwitch] = strconv.FormatBool(cfg.TraceOn)
	return resp
}

// preSend is SendMessageProcessor.preSend + msgCheck: it returns the topic
// config to write to, or an error response.
func (b *Broker) preSend(ctx *remoting.Context, h *header.SendMessageRequestHeader) (sendTarget, *codec.RemotingCommand) {
	cfg := b.Config()
	// The clock is read only when a start time is set (store.Now > 0).
	if start := cfg.StartAcceptSendRequestTimeStamp; start > 0 && b.store.Now() < start {
		return sendTarget{}, b.newSendResponse(code.SystemError, "broker unable to service, until "+humanTime2(start))
	}
	if !b.brokerWritable() && b.topics.IsOrderTopic(h.Topic) {
		return sendTarget{}, b.newSendResponse(code.NoPermission, "the broker["+cfg.BrokerIP1+"] sending message is forbidden")
	}
	if err := topic.ValidateTopic(h.Topic); err != nil {
		return sendTarget{}, b.validationResponse(err)
	}
	if err := topic.CheckSendAllowed(h.Topic); err != nil {
		return sendTarget{}, b.validationResponse(err)
	}
	tc, ok := b.topics.LookupTopicConfig(h.Topic) // by value: no allocation per send
	if !ok {
		created := b.autoCreateTopic(ctx, h)
		if created == nil {
			return sendTarget{}, b.newSendResponse(code.TopicNotExist, "topic["+h.Topic+"] not exist, apply first please!"+faqSuffix)
		}
		tc = *created
	}
	if valid := max(tc.WriteQueueNums, tc.ReadQueueNums); h.QueueID >= valid {
		remark := fmt.Sprintf("request queueId[%d] is illegal, %s Producer: %s", h.QueueID, topicConfigString(&tc), ctx.Channel.RemoteAddr())
		b.lg.Warn("request queueId is illegal", zap.String("topic", h.Topic), zap.Int32("queueId", h.QueueID),
			zap.String("remoteAddr", ctx.Channel.RemoteAddr()))
		return sendTarget{}, b.newSendResponse(code.SystemError, remark)
	}
	qid := h.QueueID
	if qid < 0 {
		qid = rand.Int32N(99999999) % max(tc.WriteQueueNums, 1)
	}
	return sendTarget{topic: h.Topic, queueID: qid, filterType: tc.TopicFilterType}, nil
}

type sendTarget struct {
	topic      string
	queueID    int32
	filterType string
}

func (b *Broker) validationResponse(err error) *codec.RemotingCommand {
	r := errorResponse(validationError(err))
	return b.newSendResponse(r.Code, r.Remark)
}

// autoCreateTopic is msgCheck's creation branch: from the header's default
// topic (TBW102) when inheritable, else a retry topic with one queue.
func (b *Broker) autoCreateTopic(ctx *remoting.Context, h *header.SendMessageRequestHeader) *body.TopicConfig {
	var sysFlag int32
	if h.UnitMode {
		if topic.IsRetryTopic(h.Topic) {
			sysFlag = topic.FlagUnitSub
		} else {
			sysFlag = topic.FlagUnit
		}
	}
	b.lg.Warn("the topic not exist", zap.String("topic", h.Topic), zap.String("remoteAddr", ctx.Channel.RemoteAddr()))
	tc, _ := b.topics.CreateTopicInSendMessageMethod(h.Topic, h.DefaultTopic, ctx.Channel.RemoteAddr(), h.DefaultTopicQueueNums, sysFlag)
	if tc == nil && topic.IsRetryTopic(h.Topic) {
		tc, _ = b.topics.CreateTopicInSendMessageBackMethod(h.Topic, 1, topic.PermWrite|topic.PermRead, sysFlag)
	}
	return tc
}

// storeHost is brokerIP1:listenPort as a message's STOREHOST, parsed once
// per brokerIP1 and port (a parse per message was ~0.3 % of the broker's
// CPU at 16 × 16, issue #11); an unparsable brokerIP1 gives 127.0.0.1.
func (b *Broker) storeHost() netip.AddrPort {
	ipText, port := b.Config().BrokerIP1, b.ListenPort()
	if c := b.storeHostCache.Load(); c != nil && c.ip == ipText && c.port == port {
		return c.ap
	}
	ip, err := netip.ParseAddr(ipText)
	if err != nil {
		ip = netip.AddrFrom4([4]byte{127, 0, 0, 1})
	}
	c := &storeHostEntry{ip: ipText, port: port, ap: netip.AddrPortFrom(ip, uint16(port))}
	b.storeHostCache.Store(c)
	return c.ap
}

// storeHostEntry is storeHost's cached parse.
type storeHostEntry struct {
	ip   string
	port int
	ap   netip.AddrPort
}

// bornHost is the sender's address as a message's BORNHOST (0.0.0.0:0 for
// a connection without an ip:port, e.g. in-process); the channel parsed
// it once when it was opened.
func bornHost(ch *remoting.Channel) netip.AddrPort {
	if ap := ch.RemoteAddrPort(); ap.IsValid() {
		return ap
	}
	return netip.AddrPortFrom(netip.IPv4Unspecified(), 0)
}

func (b *Broker) sendOne(ctx *remoting.Context, req *codec.RemotingCommand, h *header.SendMessageRequestHeader) (*codec.RemotingCommand, error) {
	tgt, resp := b.preSend(ctx, h)
	if resp != nil {
		return resp, nil
	}
	j := &sendJob{b: b, ctx: ctx, queueID: tgt.queueID}
	m := &j.m
	*m = message.MessageExt{
		Message:   message.Message{Topic: tgt.topic, Flag: h.Flag, Body: req.Body},
		QueueID:   tgt.queueID,
		BornHost:  bornHost(ctx.Channel),
		StoreHost: b.storeHost(),
	}
	if resp := b.handleRetryAndDLQ(req, h, m); resp != nil {
		return resp, nil
	}
	m.SysFlag = sysFlagFor(h.SysFlag, tgt.filterType)
	m.BornTimestamp = h.BornTimestamp
	if h.ReconsumeTimes != nil {
		m.ReconsumeTimes = *h.ReconsumeTimes
	}
	cluster := b.Config().BrokerClusterName
	m.PropertiesString = storedProperties(h.Properties, cluster)
	if isTrue(message.PropertyValue(h.Properties, message.PropertyTransactionPrepared)) {
		if b.Config().RejectTransactionMessage {
			return b.newSendResponse(code.NoPermission,
				"the broker["+b.Config().BrokerIP1+"] sending transaction message is forbidden"), nil
		}
		m.PropertiesString = halfProperties(h.Properties, cluster, m.Topic, m.QueueID)
		toHalfMessage(m)
	}
	if resp := b.handleTimerMessage(m); resp != nil {
		return resp, nil
	}
	// The answer names the queue the request chose (Java's queueIdInt),
	// even when the message went to a DLQ queue or, prepared, to the half
	// topic's queue 0.
	b.store.PutMessageAsync(m, j.done)
	return nil, nil
}

// sendJob is one SEND_MESSAGE's message, what its completion needs and its
// answer in one allocation (issue #11): the message, the callback's state
// and the stored answer were three.
type sendJob struct {
	m       message.MessageExt
	answer  sendAnswer
	b       *Broker
	ctx     *remoting.Context
	queueID int32 // the queue the request chose (see sendOne)
}

// done answers once the store has put the message.
func (j *sendJob) done(r commitlog.PutMessageResult) {
	j.b.countPut(j.m.Topic, j.m.QueueID, r)
	j.ctx.Respond(j.b.fillSendResult(&j.answer, r, j.queueID))
}

// isTrue is strconv.ParseBool's true without the error value it allocates
// for the usual "" (no TRAN_MSG property).
func isTrue(v string) bool {
	if v == "" {
		return false
	}
	t, err := strconv.ParseBool(v)
	return err == nil && t
}

// toHalfMessage is parseHalfMessageInner: the prepared message goes to
// RMQ_SYS_TRANS_HALF_TOPIC queue 0 (its real topic and queue are saved in
// the properties by halfProperties).
func toHalfMessage(m *message.MessageExt) {
	m.SysFlag = message.ResetTransactionType(m.SysFlag, message.SysFlagTransactionNot)
	m.Topic = topic.TransHalfTopic
	m.QueueID = 0
}

func sysFlagFor(sysFlag int32, filterType string) int32 {
	if filterType == "MULTI_TAG" {
		sysFlag |= message.SysFlagMultiTags
	}
	return sysFlag
}

// handleRetryAndDLQ is SendMessageProcessor.handleRetryAndDLQ: a send to
// %RETRY%group that reached the group's (or the header's) max reconsume
// times goes to %DLQ%group instead.
func (b *Broker) handleRetryAndDLQ(req *codec.RemotingCommand, h *header.SendMessageRequestHeader, m *message.MessageExt) *codec.RemotingCommand {
	if !topic.IsRetryTopic(h.Topic) {
		return nil
	}
	group := strings.TrimPrefix(h.Topic, topic.RetryGroupTopicPrefix)
	sg, ok := b.subs.FindSubscriptionGroupConfig(group)
	if !ok {
		return b.newSendResponse(code.SubscriptionGroupNotExist, "subscription group not exist, "+group+" "+faqSuffix)
	}
	maxTimes := sg.RetryMaxTimes
	if req.Version >= code.VersionV349 && h.MaxReconsumeTimes != nil {
		maxTimes = *h.MaxReconsumeTimes
	}
	var times int32
	if h.ReconsumeTimes != nil {
		times = *h.ReconsumeTimes
	}
	if times < maxTimes {
		return nil
	}
	dlq := topic.DLQTopic(group)
	tc, _ := b.topics.CreateTopicInSendMessageBackMethod(dlq, dlqNumsPerGroup, topic.PermWrite|topic.PermRead, 0)
	m.Topic = dlq
	m.QueueID = rand.Int32N(99999999) % dlqNumsPerGroup
	// Java sets DELAY=0 here on a properties map it then replaces with the
	// client's, so a client-set DELAY survives; so it does here.
	if tc == nil {
		return b.newSendResponse(code.SystemError, "topic["+dlq+"] not exist")
	}
	return nil
}

// sendResult is handlePutMessageResult: the PutMessageStatus → response
// code mapping and, when stored, the response header.
func (b *Broker) sendResult(r commitlog.PutMessageResult, queueID int32) *codec.RemotingCommand {
	return b.fillSendResult(new(sendAnswer), r, queueID)
}

// fillSendResult is sendResult with the stored answer written into a.
func (b *Broker) fillSendResult(a *sendAnswer, r commitlog.PutMessageResult, queueID int32) *codec.RemotingCommand {
	c, remark, ok := b.putStatusResponse(r.Status)
	if !ok {
		return b.newSendResponse(c, remark)
	}
	cfg := b.Config()
	*a = sendAnswer{cmd: *codec.NewResponse(c, remark), region: cfg.RegionID, traceOn: cfg.TraceOn,
		msgID: r.Append.MsgID, queueID: queueID, queueOffset: r.Append.LogicsOffset}
	a.cmd.ExtSource = a
	return &a.cmd
}

// sendAnswer is a stored message's answer: the command and its header in
// one allocation, the header written by the encoder straight from the
// fields (codec.ExtSource) instead of through a five-entry map (issue
// #11). Its bytes are those of newSendResponse plus
// SendMessageResponseHeader.PutExtFields (TestBrokerSendAnswerMatchesMap).
type sendAnswer struct {
	cmd         codec.RemotingCommand
	region      string
	traceOn     bool
	msgID       string
	queueID     int32
	queueOffset int64
}

// The answer's keys in Java's HashMap order, as field numbers.
const (
	answerRegion = iota
	answerTrace
	answerMsgID
	answerQueueID
	answerQueueOffset
)

var sendAnswerOrder = func() (order [5]uint8) {
	keys := []string{message.PropertyMsgRegion, message.PropertyTraceSwitch, "msgId", "queueId", "queueOffset"}
	for i, k := range codec.HashMapOrder(keys...) {
		order[i] = uint8(slices.Index(keys, k))
	}
	return order
}()

// ExtEntry implements codec.ExtSource.
func (a *sendAnswer) ExtEntry(i int) (codec.ExtEntry, bool) {
	if i >= len(sendAnswerOrder) {
		return codec.ExtEntry{}, false
	}
	switch sendAnswerOrder[i] {
	case answerRegion:
		return codec.ExtEntry{Key: message.PropertyMsgRegion, Value: a.region}, true
	case answerTrace:
		return codec.ExtEntry{Key: message.PropertyTraceSwitch, Value: strconv.FormatBool(a.traceOn)}, true
	case answerMsgID:
		return codec.ExtEntry{Key: "msgId", Value: a.msgID}, true
	case answerQueueID:
		return codec.ExtEntry{Key: "queueId", Num: int64(a.queueID), IsNum: true}, true
	default:
		return codec.ExtEntry{Key: "queueOffset", Num: a.queueOffset, IsNum: true}, true
	}
}

// countPut is handlePutMessageResult's statistics: a stored message (or
// batch) counts for its topic and the broker. topic is the one stored
// under (SCHEDULE_TOPIC_XXXX for a delayed message, as in Java).
func (b *Broker) countPut(topic string, queueID int32, r commitlog.PutMessageResult) {
	switch r.Status {
	case commitlog.PutOK, commitlog.FlushDiskTimeout, commitlog.FlushSlaveTimeout, commitlog.SlaveNotAvailable:
	default:
		return
	}
	n := int64(r.Append.MsgNum)
	b.stats.IncTopicPut(topic, queueID, n, int64(r.Append.WroteBytes))
	b.stats.IncBrokerPut(n)
	b.metrics.OnPut(topic, r.Append.MsgNum, int64(r.Append.WroteBytes)) // rocketmq_message_size; no-op unless metrics are on
}

// putStatusResponse maps a PutMessageStatus to Java's response code and
// remark; ok is true when the message was stored.
func (b *Broker) putStatusResponse(s commitlog.PutMessageStatus) (c int32, remark string, ok bool) {
	switch s {
	case commitlog.PutOK:
		return code.Success, "", true
	case commitlog.FlushDiskTimeout:
		return code.FlushDiskTimeout, "", true
	case commitlog.FlushSlaveTimeout:
		return code.FlushSlaveTimeout, "", true
	case commitlog.SlaveNotAvailable:
		return code.SlaveNotAvailable, "", true
	case commitlog.CreateMappedFileFailed:
		return code.SystemError, "create mapped file failed, server is busy or broken.", false
	case commitlog.MessageIllegal, commitlog.PropertiesSizeExceeded:
		return code.MessageIllegal, fmt.Sprintf("the message is illegal, maybe msg body or properties length not matched. "+
			"msg body length limit %dB, msg properties length limit 32KB.", b.maxMessageSize()), false
	case commitlog.ServiceNotAvailable:
		return code.ServiceNotAvailable, "service not available now. It may be caused by one of the following reasons: " +
			"the broker's disk is full [" + b.diskUtil() + "], messages are put to the slave, message store has been shut down, etc.", false
	case commitlog.OSPageCacheBusy:
		return code.SystemError, "[PC_SYNCHRONIZED]broker busy, start flow control for a while", false
	case commitlog.UnknownError:
		return code.SystemError, "UNKNOWN_ERROR", false
	case commitlog.InSyncReplicasNotEnough: // 5.x controller mode
		return code.SystemError, "in-sync replicas not enough", false
	}
	return code.SystemError, "UNKNOWN_ERROR DEFAULT", false
}

// diskUsageReporter is the store's view of its partitions' usage
// (store.DefaultMessageStore implements it).
type diskUsageReporter interface {
	DiskUsageRatios() (commitLog, consumeQueue, index float64)
}

// diskUtil is SendMessageProcessor.diskUtil's text: the used fraction of the
// CommitLog, consume-queue and index partitions; -1 means unknown, as
// Java's getDiskPartitionSpaceUsedPercent reports on failure.
func (b *Broker) diskUtil() string {
	cl, cq, idx := -1.0, -1.0, -1.0
	if r, ok := b.store.(diskUsageReporter); ok {
		cl, cq, idx = r.DiskUsageRatios()
	}
	return fmt.Sprintf("CL: %5.2f CQ: %5.2f INDEX: %5.2f", cl, cq, idx)
}

// sendBatch is asyncSendBatchMessage: the body is split into its messages,
// all stored to one queue with the batch's properties appended.
func (b *Broker) sendBatch(ctx *remoting.Context, req *codec.RemotingCommand, h *header.SendMessageRequestHeader) (*codec.RemotingCommand, error) {
	tgt, resp := b.preSend(ctx, h)
	if resp != nil {
		return resp, nil
	}
	if len(h.Topic) > message.MaxTopicLength {
		return b.newSendResponse(code.MessageIllegal, "message topic length too long "+strconv.Itoa(len(h.Topic))), nil
	}
	items, err := message.DecodeBatch(req.Body)
	if err != nil || len(items) == 0 {
		return b.newSendResponse(code.MessageIllegal, b.illegalRemark()), nil
	}
	batchProps := batchProperties(h.Properties, b.Config().BrokerClusterName)
	ms := make([]*message.MessageExt, len(items))
	born, storeHost := bornHost(ctx.Channel), b.storeHost()
	sysFlag := sysFlagFor(h.SysFlag, tgt.filterType)
	var reconsume int32
	if h.ReconsumeTimes != nil {
		reconsume = *h.ReconsumeTimes
	}
	for i, it := range items {
		ms[i] = &message.MessageExt{
			Message:          message.Message{Topic: tgt.topic, Flag: it.Flag, Body: it.Body},
			PropertiesString: joinBatchProperties(it.PropertiesString, batchProps),
			QueueID:          tgt.queueID, SysFlag: sysFlag, BornTimestamp: h.BornTimestamp,
			BornHost: born, StoreHost: storeHost, ReconsumeTimes: reconsume,
		}
	}
	queueID := tgt.queueID
	b.store.PutMessagesAsync(ms, func(r commitlog.PutMessageResult) {
		b.countPut(tgt.topic, queueID, r)
		ctx.Respond(b.sendResult(r, queueID))
	})
	return nil, nil
}

func (b *Broker) illegalRemark() string {
	_, remark, _ := b.putStatusResponse(commitlog.MessageIllegal)
	return remark
}

// joinBatchProperties is MessageExtBatchEncoder's property concatenation:
// the message's own properties, a separator if they do not end with one,
// then the batch-level properties.
func joinBatchProperties(own, batch string) string {
	if own != "" && batch != "" && own[len(own)-1] != message.PropertySeparator {
		return own + string(message.PropertySeparator) + batch
	}
	return own + batch
}

// humanTime2 is UtilAll.timeMillisToHumanString2 ("yyyy-MM-dd HH:mm:ss,SSS").
func humanTime2(ms int64) string {
	return time.UnixMilli(ms).Format("2006-01-02 15:04:05,000")
}
