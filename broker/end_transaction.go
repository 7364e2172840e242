package broker

// EndTransactionProcessor (broker/processor, 4.9.8): END_TRANSACTION (37),
// oneway or two-way, on Pools.EndTransaction (main and fast port). COMMIT
// restores the half message to its real topic/queue and writes the op
// record; ROLLBACK writes the op record only; NOT_TYPE or an unknown value
// answers nothing. The family also wires the transaction check service
// (TransactionalMessageCheckService) on a master, which sends
// CHECK_TRANSACTION_STATE (39) to producers (broker2client.go).

import (
	"fmt"
	"net/netip"
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/client"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/broker/transaction"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/service"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

func init() { processorFamilies = append(processorFamilies, registerEndTransaction) }

// endTransactionProcessor serves END_TRANSACTION.
type endTransactionProcessor struct {
	b   *Broker
	svc *transaction.Service
	lg  *zap.Logger
}

func registerEndTransaction(b *Broker) {
	lg := b.lg.Named("transaction")
	br := transaction.NewBridge(transaction.Options{
		Store:   b.store,
		Offsets: b.offsets,
		Topics:  b.topics,
		StoreHost: func() netip.AddrPort {
			ap, err := netip.ParseAddrPort(b.BrokerAddr())
			if err != nil {
				return netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), uint16(b.ListenPort()))
			}
			return ap
		},
		FileReservedTime: func() time.Duration { return time.Duration(b.storeCfg.FileReservedTime) * time.Hour },
		Logger:           lg,
	})
	p := &endTransactionProcessor{b: b, svc: transaction.NewService(br), lg: lg}
	b.registerProcessor(code.EndTransaction, remoting.ProcessorFunc(p.process), b.Pools.EndTransaction, true)
	// Java starts the check service on a master only (startProcessorByHa).
	b.addMasterService(func() *service.Service {
		l := transaction.NewCheckListener(br, b.sendTransactionCheck)
		interval := time.Duration(b.Config().TransactionCheckInterval) * time.Millisecond
		return transaction.NewCheckService(p.svc, l, interval, func() transaction.CheckConfig {
			c := b.Config()
			return transaction.CheckConfig{TimeOut: time.Duration(c.TransactionTimeOut) * time.Millisecond, CheckMax: c.TransactionCheckMax}
		}, lg)
	})
}

// sendTransactionCheck is the tail of sendCheckMessage: pick a producer
// channel of the group and send CHECK_TRANSACTION_STATE.
func (b *Broker) sendTransactionCheck(group string, h *header.CheckTransactionStateRequestHeader, msg []byte) bool {
	var ch client.Channel = b.producers.GetAvailableChannel(group)
	if ch == nil {
		return false
	}
	return b.CheckProducerTransactionState(group, ch, h, msg) == nil
}

func (p *endTransactionProcessor) process(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.EndTransactionRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	if p.b.Role() == store.Slave {
		p.lg.Warn("message store is slave mode, so end transaction is forbidden")
		return codec.NewResponse(code.SlaveNotAvailable, ""), nil
	}
	if !p.accept(ctx, &h, req.Remark) {
		return nil, nil // pending or unknown state: Java answers nothing
	}
	half := p.svc.HalfMessageByOffset(h.CommitLogOffset)
	if half == nil {
		return nil, wireError(code.SystemError, "Find prepared transaction message failed")
	}
	if err := checkPrepareMessage(half, &h); err != nil {
		return nil, err
	}
	if h.CommitOrRollback == message.SysFlagTransRollback {
		p.svc.DeletePrepareMessage(half)
		return codec.NewResponse(code.Success, ""), nil
	}
	return p.commit(half, &h)
}

// accept logs the request as Java does and reports whether it commits or
// rolls back.
func (p *endTransactionProcessor) accept(ctx *remoting.Context, h *header.EndTransactionRequestHeader, remark string) bool {
	var what string
	switch h.CommitOrRollback {
	case message.SysFlagTransactionNot:
		what = "pending"
	case message.SysFlagTransCommit:
		what = "commit"
	case message.SysFlagTransRollback:
		what = "rollback"
	default:
		return false
	}
	if h.FromTransactionCheck || what != "commit" {
		remote := ""
		if ctx != nil && ctx.Channel != nil {
			remote = ctx.Channel.RemoteAddr()
		}
		p.lg.Warn("end transaction", zap.String("state", what), zap.Bool("fromTransactionCheck", h.FromTransactionCheck),
			zap.String("remoteAddr", remote), zap.String("producerGroup", h.ProducerGroup),
			zap.Int64("commitLogOffset", h.CommitLogOffset), zap.String("remark", remark))
	}
	return what != "pending"
}

// checkPrepareMessage is EndTransactionProcessor.checkPrepareMessage.
func checkPrepareMessage(m *message.MessageExt, h *header.EndTransactionRequestHeader) error {
	pgroup, ok := m.Properties[message.PropertyProducerGroup]
	switch {
	case !ok:
		return wireError(code.SystemError, "java.lang.NullPointerException") // pgroupRead.equals on null
	case pgroup != h.ProducerGroup:
		return wireError(code.SystemError, "The producer group wrong")
	case m.QueueOffset != h.TranStateTableOffset:
		return wireError(code.SystemError, "The transaction state table offset wrong")
	case m.CommitLogOffset != h.CommitLogOffset:
		return wireError(code.SystemError, "The commit log offset wrong")
	}
	return nil
}

// commit stores the message in its real topic (endMessageTransaction +
// sendFinalMessage) and, when stored, writes the op record.
func (p *endTransactionProcessor) commit(half *message.MessageExt, h *header.EndTransactionRequestHeader) (*codec.RemotingCommand, error) {
	inner, err := endMessageTransaction(half)
	if err != nil {
		return nil, err
	}
	inner.SysFlag = message.ResetTransactionType(inner.SysFlag, h.CommitOrRollback)
	inner.QueueOffset = h.TranStateTableOffset
	inner.PreparedTransactionOffset = h.CommitLogOffset
	inner.StoreTimestamp = half.StoreTimestamp
	res := p.b.store.PutMessage(inner)
	c, remark := p.finalPutResponse(res.Status)
	if c == code.Success {
		p.svc.DeletePrepareMessage(half)
	}
	return codec.NewResponse(c, remark), nil
}

// endMessageTransaction is the committed copy of a half message: its real
// topic and queue, the same body, flag, hosts and times. The properties are
// written from the half's map before REAL_TOPIC, REAL_QID and TRAN_MSG leave
// it, so the stored string keeps them, as in Java.
func endMessageTransaction(half *message.MessageExt) (*message.MessageExt, error) {
	p := transaction.ParseProps(half.PropertiesString)
	realTopic, ok := p.Get(message.PropertyRealTopic)
	if !ok {
		return nil, wireError(code.SystemError, "java.lang.NullPointerException")
	}
	qs, _ := p.Get(message.PropertyRealQueueID)
	qid, err := strconv.ParseInt(qs, 10, 32)
	if err != nil {
		return nil, wireError(code.SystemError, fmt.Sprintf("java.lang.NumberFormatException: For input string: \"%s\"", qs))
	}
	stored := p.String()
	p.Remove(message.PropertyRealTopic)
	p.Remove(message.PropertyRealQueueID)
	p.Remove(message.PropertyTransactionPrepared)
	return &message.MessageExt{
		Message:          message.Message{Topic: realTopic, Flag: half.Flag, Body: half.Body, Properties: p.Map()},
		PropertiesString: stored,
		QueueID:          int32(qid),
		SysFlag:          half.SysFlag,
		BornTimestamp:    half.BornTimestamp,
		BornHost:         half.BornHost,
		StoreHost:        half.StoreHost,
		ReconsumeTimes:   half.ReconsumeTimes,
	}, nil
}

// finalPutResponse is sendFinalMessage's status mapping.
func (p *endTransactionProcessor) finalPutResponse(s commitlog.PutMessageStatus) (int32, string) {
	switch s {
	case commitlog.PutOK, commitlog.FlushDiskTimeout, commitlog.FlushSlaveTimeout, commitlog.SlaveNotAvailable:
		return code.Success, ""
	case commitlog.CreateMappedFileFailed:
		return code.SystemError, "Create mapped file failed."
	case commitlog.MessageIllegal, commitlog.PropertiesSizeExceeded:
		return code.MessageIllegal, fmt.Sprintf("The message is illegal, maybe msg body or properties length not matched. "+
			"msg body length limit %dB, msg properties length limit 32KB.", p.b.storeCfg.MaxMessageSize)
	case commitlog.ServiceNotAvailable:
		return code.ServiceNotAvailable, "Service not available now."
	case commitlog.OSPageCacheBusy:
		return code.SystemError, "OS page cache busy, please try another machine"
	case commitlog.UnknownError:
		return code.SystemError, "UNKNOWN_ERROR"
	}
	return code.SystemError, "UNKNOWN_ERROR DEFAULT"
}
