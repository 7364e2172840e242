package broker

// Broker2Client (broker/client/net, 4.9.8): requests the broker starts
// toward its clients. RESET_CONSUMER_CLIENT_OFFSET (220, oneway to every
// consumer of a group), GET_CONSUMER_STATUS_FROM_CLIENT (221, sync to each
// consumer), forwarding of GET_CONSUMER_RUNNING_INFO (307) and
// CONSUME_MESSAGE_DIRECTLY (309) to one client, and CHECK_TRANSACTION_STATE
// (39, oneway to a producer) for the transaction check service.
//
// NOTIFY_CONSUMER_IDS_CHANGED (40) is sent by the broker core's
// client.DefaultConsumerIdsChangeListener on every group change (heartbeat
// register, UNREGISTER_CLIENT, connection close), not from here.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/client"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// Client versions Broker2Client gates on (MQVersion.Version ordinals).
const (
	versionV307Snapshot = 28 // V3_0_7_SNAPSHOT
	versionV318Snapshot = 62 // V3_1_8_SNAPSHOT
)

// callClientTimeout is Broker2Client.callClient's 10 s; status calls use 5 s.
const (
	callClientTimeout   = 10 * time.Second
	consumerStatusTimeo = 5 * time.Second
)

// newBrokerRequest is a request the broker starts, in the serialize type in
// force (Java's createRequestCommand takes serializeTypeConfigInThisServer).
func (b *Broker) newBrokerRequest(c int32, ext map[string]string, data []byte) *codec.RemotingCommand {
	req := codec.NewRequest(c, ext, data)
	req.SerializeType = b.serializeType
	return req
}

// invokeChannel calls a client over its server-side connection.
func invokeChannel(ch client.Channel, req *codec.RemotingCommand, timeout time.Duration) (*codec.RemotingCommand, error) {
	rc, ok := ch.(*remoting.Channel)
	if !ok {
		return nil, errors.New("broker: channel cannot be invoked")
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return rc.InvokeSync(ctx, req)
}

// resetOffset is Broker2Client.resetOffset: compute each queue's new offset
// (timestamp -1 = max offset; the current offset wins unless isForce or it
// is ahead), send RESET_CONSUMER_CLIENT_OFFSET oneway to every consumer of
// the group and answer the table. The broker's own table is reset too
// (offset manager reset marker), so that a slave reconciling offsets does
// not take the reset back.
func (b *Broker) resetOffset(topicName, group string, timestamp int64, isForce, isC bool) (*codec.RemotingCommand, error) {
	tc := b.topics.SelectTopicConfig(topicName)
	if tc == nil {
		return nil, wireError(code.SystemError, "[reset-offset] reset offset failed, no topic in this broker. topic="+topicName)
	}
	table := make(map[body.MessageQueue]int64, tc.WriteQueueNums)
	for i := int32(0); i < tc.WriteQueueNums; i++ {
		cur := b.offsets.QueryOffset(group, topicName, i)
		if cur == -1 {
			return nil, wireError(code.SystemError, fmt.Sprintf("THe consumer group <%s> not exist", group))
		}
		target := b.store.MaxOffsetInQueue(topicName, i)
		if timestamp != -1 {
			target = b.store.OffsetInQueueByTime(topicName, i, timestamp)
		}
		target = max(target, 0)
		if !isForce && target >= cur {
			target = cur
		}
		table[body.MessageQueue{Topic: topicName, BrokerName: b.Config().BrokerName, QueueID: i}] = target
	}
	rb := body.ResetOffsetBody{OffsetTable: table}
	h := header.ResetOffsetRequestHeader{Topic: topicName, Group: group, Timestamp: timestamp}
	data := rb.Encode()
	if isC {
		data = rb.EncodeForC()
	}
	req := b.newBrokerRequest(code.ResetConsumerClientOffset, h.ToExtFields(), data)
	if err := b.sendResetToConsumers(group, topicName, timestamp, req); err != nil {
		return nil, err
	}
	for mq, off := range table {
		b.resetOffsetOf(group, topicName, mq.QueueID, off) // also clears a FIFO pop block (pop.go)
	}
	resp := codec.NewResponse(code.Success, remarkNotSet)
	resp.Body = rb.Encode()
	return resp, nil
}

func (b *Broker) sendResetToConsumers(group, topicName string, timestamp int64, req *codec.RemotingCommand) error {
	g := b.consumers.GetConsumerGroupInfo(group)
	var infos []*client.ClientChannelInfo
	if g != nil {
		infos = g.ChannelInfos()
	}
	if len(infos) == 0 {
		return wireError(code.ConsumerNotOnline, fmt.Sprintf(
			"Consumer not online, so can not reset offset, Group: %s Topic: %s Timestamp: %d", group, topicName, timestamp))
	}
	for _, info := range infos {
		if info.Version < versionV307Snapshot {
			return wireError(code.SystemError, "the client does not support this feature. version="+versionDesc(info.Version))
		}
		if err := info.Channel.InvokeOneway(req); err != nil {
			b.lg.Warn("reset offset: notify client failed", zap.String("topic", topicName),
				zap.String("consumerGroup", group), zap.String("clientId", info.ClientID), zap.Error(err))
			continue
		}
		b.lg.Info("reset offset: notified client", zap.String("topic", topicName),
			zap.String("consumerGroup", group), zap.String("clientId", info.ClientID))
	}
	return nil
}

// versionDesc is MQVersion.getVersionDesc for the versions the gates above
// reject (older than V3_1_8_SNAPSHOT); newer values are only ever printed
// for clients that pass, so the current version's name stands in for them.
func versionDesc(v int32) string {
	if v >= 0 && int(v) < len(oldVersionNames) {
		return oldVersionNames[v]
	}
	if v == code.CurrentVersion {
		return "V4_9_8"
	}
	return "version(" + strconv.Itoa(int(v)) + ")"
}

// oldVersionNames are MQVersion.Version's first constants, by ordinal.
var oldVersionNames = [...]string{
	"V3_0_0_SNAPSHOT", "V3_0_0_ALPHA1", "V3_0_0_BETA1", "V3_0_0_BETA2", "V3_0_0_BETA3", "V3_0_0_BETA4",
	"V3_0_0_BETA5", "V3_0_0_BETA6_SNAPSHOT", "V3_0_0_BETA6", "V3_0_0_BETA7_SNAPSHOT", "V3_0_0_BETA7",
	"V3_0_0_BETA8_SNAPSHOT", "V3_0_0_BETA8", "V3_0_0_BETA9_SNAPSHOT", "V3_0_0_BETA9", "V3_0_0_FINAL",
	"V3_0_1_SNAPSHOT", "V3_0_1", "V3_0_2_SNAPSHOT", "V3_0_2", "V3_0_3_SNAPSHOT", "V3_0_3", "V3_0_4_SNAPSHOT",
	"V3_0_4", "V3_0_5_SNAPSHOT", "V3_0_5", "V3_0_6_SNAPSHOT", "V3_0_6", "V3_0_7_SNAPSHOT", "V3_0_7",
	"V3_0_8_SNAPSHOT", "V3_0_8", "V3_0_9_SNAPSHOT", "V3_0_9", "V3_0_10_SNAPSHOT", "V3_0_10", "V3_0_11_SNAPSHOT",
	"V3_0_11", "V3_0_12_SNAPSHOT", "V3_0_12", "V3_0_13_SNAPSHOT", "V3_0_13", "V3_0_14_SNAPSHOT", "V3_0_14",
	"V3_0_15_SNAPSHOT", "V3_0_15", "V3_1_0_SNAPSHOT", "V3_1_0", "V3_1_1_SNAPSHOT", "V3_1_1", "V3_1_2_SNAPSHOT",
	"V3_1_2", "V3_1_3_SNAPSHOT", "V3_1_3", "V3_1_4_SNAPSHOT", "V3_1_4", "V3_1_5_SNAPSHOT", "V3_1_5",
	"V3_1_6_SNAPSHOT", "V3_1_6", "V3_1_7_SNAPSHOT", "V3_1_7",
}

// getConsumeStatus is Broker2Client.getConsumeStatus: ask every consumer of
// the group (or only originClientID) for its queue offsets of topic and
// answer {"consumerTable":{clientId:{mq:offset}}}.
func (b *Broker) getConsumeStatus(topicName, group, originClientID string) (*codec.RemotingCommand, error) {
	g := b.consumers.GetConsumerGroupInfo(group)
	if g == nil {
		// Java dereferences the missing group: NullPointerException.
		return nil, wireError(code.SystemError, "java.lang.NullPointerException")
	}
	infos := g.ChannelInfos()
	if len(infos) == 0 {
		return nil, wireError(code.SystemError, fmt.Sprintf("No Any Consumer online in the consumer group: [%s]", group))
	}
	h := header.GetConsumerStatusRequestHeader{Topic: topicName, Group: group}
	table := map[string][]byte{}
	var order []string
	for _, info := range infos {
		if info.Version < versionV307Snapshot {
			return nil, wireError(code.SystemError, "the client does not support this feature. version="+versionDesc(info.Version))
		}
		if originClientID != "" && originClientID != info.ClientID {
			continue
		}
		req := b.newBrokerRequest(code.GetConsumerStatusFromClient, h.ToExtFields(), nil)
		resp, err := invokeChannel(info.Channel, req, consumerStatusTimeo)
		if err != nil || resp.Code != code.Success || resp.Body == nil {
			b.lg.Warn("get consumer status failed", zap.String("consumerGroup", group),
				zap.String("clientId", info.ClientID), zap.Error(err))
			continue
		}
		if inner, ok := messageQueueTableJSON(resp.Body); ok {
			table[info.ClientID] = inner
			order = append(order, info.ClientID)
		}
		if originClientID != "" {
			break
		}
	}
	resp := success()
	resp.Body = encodeConsumerStatusBody(order, table)
	return resp, nil
}

// messageQueueTableJSON extracts the client's GetConsumerStatusBody
// messageQueueTable and re-encodes it as a ResetOffsetBody table, in the
// fastjson object-key form.
func messageQueueTableJSON(data []byte) ([]byte, bool) {
	norm, err := body.Normalize(data)
	if err != nil {
		return nil, false
	}
	var raw struct {
		MessageQueueTable map[string]int64 `json:"messageQueueTable"`
	}
	if err := json.Unmarshal(norm, &raw); err != nil {
		return nil, false
	}
	table := make(map[body.MessageQueue]int64, len(raw.MessageQueueTable))
	for k, v := range raw.MessageQueueTable {
		var mq body.MessageQueue
		if err := json.Unmarshal([]byte(k), &mq); err != nil {
			return nil, false
		}
		table[mq] = v
	}
	rb := body.ResetOffsetBody{OffsetTable: table}
	enc := rb.Encode() // {"offsetTable":{...}}
	const prefix = `{"offsetTable":`
	if len(enc) < len(prefix)+1 {
		return []byte("{}"), true
	}
	return enc[len(prefix) : len(enc)-1], true
}

// encodeConsumerStatusBody writes GetConsumerStatusBody as fastjson does:
// {"consumerTable":{"clientId":{mq:offset}},"messageQueueTable":{}}.
func encodeConsumerStatusBody(order []string, table map[string][]byte) []byte {
	out := []byte(`{"consumerTable":{`)
	body.SortJavaHashOrder(order)
	for i, id := range order {
		if i > 0 {
			out = append(out, ',')
		}
		out = body.AppendString(out, id, false)
		out = append(out, ':')
		out = append(out, table[id]...)
	}
	return append(out, `},"messageQueueTable":{}}`...)
}

// callConsumer is AdminBrokerProcessor.callConsumer: forward an admin
// request (same ext fields and body) to one consumer and relay its answer.
func (b *Broker) callConsumer(reqCode int32, req *codec.RemotingCommand, group, clientID string) (*codec.RemotingCommand, error) {
	info := b.consumers.FindChannel(group, clientID)
	if info == nil {
		return nil, wireError(code.SystemError, fmt.Sprintf("The Consumer <%s> <%s> not online", group, clientID))
	}
	if info.Version < versionV318Snapshot {
		return nil, wireError(code.SystemError, fmt.Sprintf(
			"The Consumer <%s> Version <%s> too low to finish, please upgrade it to V3_1_8_SNAPSHOT", clientID, versionDesc(info.Version)))
	}
	fwd := b.newBrokerRequest(reqCode, nil, req.Body)
	fwd.ExtFields = req.ExtFields
	resp, err := invokeChannel(info.Channel, fwd, callClientTimeout)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return nil, wireError(code.ConsumeMsgTimeout, fmt.Sprintf("consumer <%s> <%s> Timeout: %v", group, clientID, err))
	case err != nil:
		return nil, wireError(code.SystemError, fmt.Sprintf("invoke consumer <%s> <%s> Exception: %v", group, clientID, err))
	}
	return relayResponse(resp), nil
}

// relayResponse copies a client's answer into a fresh response (the
// transport sets opaque and flag for the admin's request).
func relayResponse(r *codec.RemotingCommand) *codec.RemotingCommand {
	out := codec.NewResponse(r.Code, r.Remark)
	out.Language, out.Version = r.Language, r.Version
	out.ExtFields, out.Body = r.ExtFields, r.Body
	return out
}

// CheckProducerTransactionState is Broker2Client.checkProducerTransactionState:
// send CHECK_TRANSACTION_STATE oneway to a producer of group with the half
// message's record bytes (topic/queue already restored by the caller).
func (b *Broker) CheckProducerTransactionState(group string, ch client.Channel, h *header.CheckTransactionStateRequestHeader, msg []byte) error {
	req := b.newBrokerRequest(code.CheckTransactionState, h.ToExtFields(), msg)
	if err := ch.InvokeOneway(req); err != nil {
		b.lg.Error("check transaction state failed", zap.String("producerGroup", group),
			zap.String("remoteAddr", ch.RemoteAddr()), zap.Error(err))
		return err
	}
	return nil
}
