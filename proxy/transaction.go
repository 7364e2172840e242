package proxy

import (
	"context"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/internal/message"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// txnData is where a prepared message lives, so that EndTransaction can
// name it to its broker (5.x's TransactionData).
type txnData struct {
	brokerName           string
	addr                 string
	tranStateTableOffset int64
	commitLogOffset      int64
	msgID                string
	at                   time.Time
}

type txnKey struct{ producerGroup, transactionID string }

// txnTable holds the prepared messages of this proxy's producers until
// they are ended or expire.
type txnTable struct {
	mu sync.Mutex
	m  map[txnKey]txnData
}

// txnTTL bounds how long an unresolved transaction is remembered: the
// broker keeps asking for it (and re-records it) after that.
const txnTTL = 2 * time.Hour

func newTxnTable() *txnTable { return &txnTable{m: map[txnKey]txnData{}} }

func (t *txnTable) put(group, id string, d txnData) {
	t.mu.Lock()
	t.m[txnKey{group, id}] = d
	t.mu.Unlock()
}

func (t *txnTable) take(group, id string) (txnData, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	d, ok := t.m[txnKey{group, id}]
	delete(t.m, txnKey{group, id})
	return d, ok
}

func (t *txnTable) expire(now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, d := range t.m {
		if now.Sub(d.at) > txnTTL {
			delete(t.m, k)
		}
	}
}

// EndTransaction commits or rolls back a prepared message with a oneway
// END_TRANSACTION to its broker (5.x's EndTransactionActivity).
func (svc *service) EndTransaction(ctx context.Context, req *apiv2.EndTransactionRequest) (*apiv2.EndTransactionResponse, error) {
	ci := callInfoOf(ctx)
	if err := ci.requireClientID(); err != nil {
		return &apiv2.EndTransactionResponse{Status: StatusOf(err)}, nil
	}
	if err := validateTopic(req.GetTopic()); err != nil {
		return &apiv2.EndTransactionResponse{Status: StatusOf(err)}, nil
	}
	if strings.TrimSpace(req.GetTransactionId()) == "" {
		return &apiv2.EndTransactionResponse{Status: newStatus(apiv2.Code_INVALID_TRANSACTION_ID, "transaction id cannot be empty")}, nil
	}
	group := req.GetTopic().GetName() // 5.x: the topic is the producer group
	d, ok := svc.txns.take(group, req.GetTransactionId())
	if !ok {
		return &apiv2.EndTransactionResponse{Status: newStatus(apiv2.Code_INVALID_TRANSACTION_ID, "cannot found transaction data")}, nil
	}
	var kind int32 = transactionNotType
	switch req.GetResolution() {
	case apiv2.TransactionResolution_COMMIT:
		kind = transactionCommitType
	case apiv2.TransactionResolution_ROLLBACK:
		kind = transactionRollbackType
	}
	msgID := req.GetMessageId()
	if msgID == "" {
		msgID = d.msgID
	}
	h := &header.EndTransactionRequestHeader{
		ProducerGroup:        group,
		TranStateTableOffset: d.tranStateTableOffset,
		CommitLogOffset:      d.commitLogOffset,
		CommitOrRollback:     kind,
		FromTransactionCheck: req.GetSource() == apiv2.TransactionSource_SOURCE_SERVER_CHECK,
		MsgID:                msgID,
		TransactionID:        req.GetTransactionId(),
		Bname:                d.brokerName,
	}
	cmd := codec.NewRequest(code.EndTransaction, h.ToExtFields(), nil)
	if err := svc.be.InvokeOneway(ctx, d.addr, cmd); err != nil {
		return &apiv2.EndTransactionResponse{Status: StatusOf(err)}, nil
	}
	return &apiv2.EndTransactionResponse{Status: okStatus()}, nil
}

// onCheckTransactionState relays a broker's CHECK_TRANSACTION_STATE to one
// of the producer group's gRPC clients as a RecoverOrphanedTransactionCommand
// on its Telemetry stream (5.x's ProxyClientRemotingProcessor).
func (svc *service) onCheckTransactionState(chAddr string, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	// On a client's own channel (local mode) the broker chose that client.
	brokerAddr, clientID := splitClientChannel(chAddr)
	var h header.CheckTransactionStateRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		svc.lg.Warn("bad check transaction state request", zap.String("brokerAddr", brokerAddr), zap.Error(err))
		return nil, nil
	}
	m, err := message.DecodeRecord(req.Body, true)
	if err != nil {
		svc.lg.Warn("bad check transaction state message", zap.String("brokerAddr", brokerAddr), zap.Error(err))
		return nil, nil
	}
	group := m.Properties[message.PropertyProducerGroup]
	txID := h.TransactionID
	if txID == "" {
		txID = m.Properties[message.PropertyUniqClientMessageIDKeyidx]
	}
	svc.txns.put(group, txID, txnData{brokerName: h.Bname, addr: brokerAddr, tranStateTableOffset: h.TranStateTableOffset,
		commitLogOffset: h.CommitLogOffset, msgID: m.Properties[message.PropertyUniqClientMessageIDKeyidx], at: time.Now()})
	cmd := &apiv2.TelemetryCommand{Command: &apiv2.TelemetryCommand_RecoverOrphanedTransactionCommand{
		RecoverOrphanedTransactionCommand: &apiv2.RecoverOrphanedTransactionCommand{Message: ProtoMessage(m), TransactionId: txID},
	}}
	if c := svc.clients.Get(clientID); c != nil && c.Push(cmd) {
		return nil, nil
	}
	for _, c := range svc.clients.ProducersOf(group) {
		if c.Push(cmd) {
			return nil, nil
		}
	}
	svc.lg.Info("no grpc producer to check transaction", zap.String("producerGroup", group), zap.String("transactionId", txID))
	return nil, nil
}
