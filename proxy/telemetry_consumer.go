package proxy

// Broker-to-consumer requests for gRPC consumers, relayed over the client's
// Telemetry stream as 5.x's GrpcClientChannel does:
// GET_CONSUMER_RUNNING_INFO (307) → PrintThreadStackTraceCommand,
// CONSUME_MESSAGE_DIRECTLY (309) → VerifyMessageCommand; the client's
// ThreadStackTrace / VerifyMessageResult (matched by nonce) becomes the
// remoting answer (ClientActivity.reportThreadStackTrace /
// reportVerifyMessageResult).

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/internal/message"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// telemetryReplyTimeout bounds the wait for a client's answer; the broker
// gives the whole exchange 5 s.
const telemetryReplyTimeout = 4 * time.Second

// consumerFor picks the gRPC consumer a broker request is for: the client
// with that id when it is one of ours, else (the broker knows gRPC clients
// by the proxy's id) any client of the group with an open stream.
func (svc *service) consumerFor(clientID, group string) *clientSession {
	cs := svc.clients.ConsumersOf(group)
	for _, c := range cs {
		if c.id == clientID {
			return c
		}
	}
	if len(cs) > 0 {
		return cs[0]
	}
	return nil
}

func newNonce() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ask pushes cmd (carrying nonce) to c and waits for the answer.
func (svc *service) ask(c *clientSession, nonce string, cmd *apiv2.TelemetryCommand) (*apiv2.TelemetryCommand, bool) {
	ch, cancel := svc.waiters.Register(nonce)
	defer cancel()
	if !c.Push(cmd) {
		return nil, false
	}
	t := time.NewTimer(telemetryReplyTimeout)
	defer t.Stop()
	select {
	case r := <-ch:
		return r, true
	case <-t.C:
		return nil, false
	}
}

// runningInfoJSON is ConsumerRunningInfo's JSON with only what a gRPC
// client reports (fastjson field order).
type runningInfoJSON struct {
	Jstack          string            `json:"jstack,omitempty"`
	MqTable         map[string]any    `json:"mqTable"`
	Properties      map[string]string `json:"properties"`
	StatusTable     map[string]any    `json:"statusTable"`
	SubscriptionSet []any             `json:"subscriptionSet"`
}

func (svc *service) onGetConsumerRunningInfo(_ string, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.GetConsumerRunningInfoRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	c := svc.consumerFor(h.ClientID, h.ConsumerGroup)
	if c == nil {
		return codec.NewResponse(code.SystemError, "The Consumer Group <"+h.ConsumerGroup+"> not exist in this consumer"), nil
	}
	info := runningInfoJSON{MqTable: map[string]any{}, StatusTable: map[string]any{}, SubscriptionSet: []any{},
		Properties: map[string]string{"PROP_CLIENT_VERSION": c.info.ClientVersion,
			"PROP_CONSUME_TYPE": consumeTypeOf(c.Settings().GetClientType())}}
	if h.JstackEnable {
		nonce := newNonce()
		r, ok := svc.ask(c, nonce, &apiv2.TelemetryCommand{Command: &apiv2.TelemetryCommand_PrintThreadStackTraceCommand{
			PrintThreadStackTraceCommand: &apiv2.PrintThreadStackTraceCommand{Nonce: nonce}}})
		switch {
		case !ok:
			return codec.NewResponse(code.SystemError, "no thread stack trace from gRPC client "+c.id), nil
		case r.GetStatus().GetCode() == apiv2.Code_VERIFY_FIFO_MESSAGE_UNSUPPORTED:
			return codec.NewResponse(code.NoPermission, "forbidden to verify message"), nil
		case r.GetStatus() != nil && r.GetStatus().GetCode() != apiv2.Code_OK:
			return codec.NewResponse(code.SystemError, "verify message failed"), nil
		}
		info.Jstack = r.GetThreadStackTrace().GetThreadStackTrace()
	}
	b, err := json.Marshal(info)
	if err != nil {
		return nil, err
	}
	resp := codec.NewResponse(code.Success, "")
	resp.Body = b
	return resp, nil
}

// directResultJSON is ConsumeMessageDirectlyResult's JSON.
type directResultJSON struct {
	AutoCommit     bool   `json:"autoCommit"`
	ConsumeResult  string `json:"consumeResult,omitempty"`
	Order          bool   `json:"order"`
	Remark         string `json:"remark"`
	SpentTimeMills int64  `json:"spentTimeMills"`
}

// cmResultOf maps the client's verify status to CMResult (5.x
// buildConsumeMessageDirectlyResult; other codes leave it unset).
func cmResultOf(c apiv2.Code) string {
	switch c {
	case apiv2.Code_OK:
		return "CR_SUCCESS"
	case apiv2.Code_FAILED_TO_CONSUME_MESSAGE:
		return "CR_LATER"
	case apiv2.Code_MESSAGE_CORRUPTED:
		return "CR_RETURN_NULL"
	}
	return ""
}

func (svc *service) onConsumeMessageDirectly(_ string, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.ConsumeMessageDirectlyResultRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	c := svc.consumerFor(h.ClientID, h.ConsumerGroup)
	if c == nil {
		return codec.NewResponse(code.SystemError, "The Consumer Group <"+h.ConsumerGroup+"> not exist in this consumer"), nil
	}
	m, err := message.DecodeRecord(req.Body, true)
	if err != nil {
		return codec.NewResponse(code.SystemError, "cannot decode the message: "+err.Error()), nil
	}
	start := time.Now()
	nonce := newNonce()
	r, ok := svc.ask(c, nonce, &apiv2.TelemetryCommand{Command: &apiv2.TelemetryCommand_VerifyMessageCommand{
		VerifyMessageCommand: &apiv2.VerifyMessageCommand{Nonce: nonce, Message: toV2Message(m, start.UnixMilli())}}})
	if !ok {
		svc.lg.Warn("no verify result from gRPC client", zap.String("clientId", c.id), zap.String("msgId", h.MsgID))
		return codec.NewResponse(code.SystemError, "no verify result from gRPC client "+c.id), nil
	}
	b, err := json.Marshal(directResultJSON{AutoCommit: true, ConsumeResult: cmResultOf(r.GetStatus().GetCode()),
		Remark: "from gRPC client", SpentTimeMills: time.Since(start).Milliseconds()})
	if err != nil {
		return nil, err
	}
	resp := codec.NewResponse(code.Success, "")
	resp.Body = b
	return resp, nil
}
