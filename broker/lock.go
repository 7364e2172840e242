package broker

// LOCK_BATCH_MQ (41) and UNLOCK_BATCH_MQ (42): AdminBrokerProcessor's
// lockBatchMQ / unlockBatchMQ (4.9.8) over the RebalanceLockManager. Orderly
// consumers lock their queues before consuming and unlock them on
// rebalance, the Java client sometimes oneway (no answer is written then).

import (
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

func init() { processorFamilies = append(processorFamilies, registerLockProcessors) }

func registerLockProcessors(b *Broker) {
	b.registerProcessor(code.LockBatchMq, remoting.ProcessorFunc(b.lockBatchMQ), b.Pools.Admin, true)
	b.registerProcessor(code.UnlockBatchMq, remoting.ProcessorFunc(b.unlockBatchMQ), b.Pools.Admin, true)
}

// lockBatchMQ grants the queues that are free, expired or already held by
// the requesting client and answers them as lockOKMQSet.
func (b *Broker) lockBatchMQ(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	rb, err := body.DecodeLockBatchRequestBody(req.Body)
	if err != nil {
		return nil, err
	}
	ok := b.locks.TryLockBatch(rb.ConsumerGroup, rb.MqSet, rb.ClientID)
	out := body.LockBatchResponseBody{LockOKMQSet: ok, InitialCapacity: len(rb.MqSet)}
	resp := success()
	resp.Body = out.Encode()
	return resp, nil
}

// unlockBatchMQ releases the queues the requesting client holds.
func (b *Broker) unlockBatchMQ(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	rb, err := body.DecodeLockBatchRequestBody(req.Body)
	if err != nil {
		return nil, err
	}
	b.locks.UnlockBatch(rb.ConsumerGroup, rb.MqSet, rb.ClientID)
	return success(), nil
}
