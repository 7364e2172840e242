package broker

// Helpers shared by the processors: response builders, permission checks
// and the timed executor behind Java's BrokerFastFailure
// (broker/latency/BrokerFastFailure.java) and NettyRemotingAbstract's
// rejectRequest.

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/topic"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// faqSuffix is FAQUrl.suggestTodo(APPLY_TOPIC_URL / SUBSCRIPTION_GROUP_NOT_EXIST).
const faqSuffix = "\nSee http://rocketmq.apache.org/docs/faq/ for further details."

// Flow-control remarks, byte-equal to Java's.
const (
	remarkOverload      = "[OVERLOAD]system busy, start flow control for a while"
	remarkRejectRequest = "[REJECTREQUEST]system busy, start flow control for a while"
	remarkPCBusyFmt     = "[PCBUSY_CLEAN_QUEUE]broker busy, start flow control for a while, period in queue: %dms, size of queue: %d"
	remarkTimeoutFmt    = "[TIMEOUT_CLEAN_QUEUE]broker busy, start flow control for a while, period in queue: %dms, size of queue: %d"
)

// wireError answers code with remark.
func wireError(c int32, remark string) error { return remoting.NewError(c, remark) }

// validationError turns a topic.ValidationError into a wire error.
func validationError(err error) error {
	var ve *topic.ValidationError
	if errors.As(err, &ve) {
		return remoting.NewError(ve.Code, ve.Remark)
	}
	return err
}

// errorResponse builds the response the transport would send for err.
func errorResponse(err error) *codec.RemotingCommand {
	var re *remoting.Error
	if errors.As(err, &re) {
		return codec.NewResponse(re.Code, re.Remark)
	}
	return codec.NewResponse(code.SystemError, err.Error())
}

// brokerWritable reports whether brokerPermission allows writes.
func (b *Broker) brokerWritable() bool { return topic.IsWriteable(int32(b.Config().BrokerPermission)) }

// brokerReadable reports whether brokerPermission allows reads.
func (b *Broker) brokerReadable() bool { return topic.IsReadable(int32(b.Config().BrokerPermission)) }

// errSendForbidden is Java's "the broker[ip] sending message is forbidden".
func (b *Broker) errSendForbidden() error {
	return wireError(code.NoPermission, "the broker["+b.Config().BrokerIP1+"] sending message is forbidden")
}

// perm2String is PermName.perm2String ("RW-", "R-X"…).
func perm2String(perm int32) string {
	s := []byte("---")
	if topic.IsReadable(perm) {
		s[0] = 'R'
	}
	if topic.IsWriteable(perm) {
		s[1] = 'W'
	}
	if topic.IsInherited(perm) {
		s[2] = 'X'
	}
	return string(s)
}

// topicConfigString is TopicConfig.toString.
func topicConfigString(tc *body.TopicConfig) string {
	return "TopicConfig [topicName=" + tc.TopicName + ", readQueueNums=" + strconv.Itoa(int(tc.ReadQueueNums)) +
		", writeQueueNums=" + strconv.Itoa(int(tc.WriteQueueNums)) + ", perm=" + perm2String(tc.Perm) +
		", topicFilterType=" + tc.TopicFilterType + ", topicSysFlag=" + strconv.Itoa(int(tc.TopicSysFlag)) +
		", order=" + strconv.FormatBool(tc.Order) + "]"
}

// timedExecutor is a bounded FIFO of requests with their arrival time,
// served by a fixed set of owned goroutines. Java's BrokerFastFailure scans
// the head of the send (pull, heartbeat, transaction) queue every 10 ms and
// answers SYSTEM_BUSY for requests that waited longer than the configured
// time, or for every queued send while the OS page cache is busy. The
// remoting pool cannot tell how long a task waited, so processors that need
// this run behind a timedExecutor: the event loop only stamps and queues
// (timed), a timedExecutor worker runs the real processor.
type timedExecutor struct {
	name    string
	maxWait func() time.Duration // waitTimeMillsIn*Queue, read live
	cap     int

	mu    sync.Mutex
	queue []timedTask // FIFO, by value (no allocation per request); guarded by mu
	wake  chan struct{}
}

type timedTask struct {
	enq time.Time
	ctx *remoting.Context
	req *codec.RemotingCommand
	p   remoting.Processor
}

func newTimedExecutor(name string, capacity int, maxWait func() time.Duration) *timedExecutor {
	return &timedExecutor{name: name, cap: capacity, maxWait: maxWait, wake: make(chan struct{}, 1)}
}

// Len is the number of queued requests.
func (q *timedExecutor) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.queue)
}

// push queues a copy of *t (t itself is not kept).
func (q *timedExecutor) push(t *timedTask) bool {
	q.mu.Lock()
	if len(q.queue) >= q.cap {
		q.mu.Unlock()
		return false
	}
	q.queue = append(q.queue, *t)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
	return true
}

func (q *timedExecutor) pop() (t timedTask, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.queue) == 0 {
		return t, false
	}
	t = q.queue[0]
	q.queue[0] = timedTask{} // no references kept for the GC
	q.queue = q.queue[1:]
	if len(q.queue) > 0 {
		select { // keep another worker going
		case q.wake <- struct{}{}:
		default:
		}
	}
	return t, true
}

// popExpired removes the head if it waited at least maxWait (or
// unconditionally when all is set) and returns it with the queue size left.
func (q *timedExecutor) popExpired(now time.Time, all bool) (t timedTask, ok bool, left int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.queue) == 0 {
		return t, false, 0
	}
	t = q.queue[0]
	if !all && now.Sub(t.enq) < q.maxWait() {
		return timedTask{}, false, len(q.queue)
	}
	q.queue[0] = timedTask{}
	q.queue = q.queue[1:]
	return t, true, len(q.queue)
}

// timed wraps p so that it runs on q. Queueing never blocks, so it runs
// inline on the event loop that read the request (no hop through the
// remoting pool, whose worker would only have queued it here). A request
// refused by q (full) gets Java's OVERLOAD answer; reject, when it reports
// true at intake, answers REJECTREQUEST (Java's processor.rejectRequest()).
func (b *Broker) timed(q *timedExecutor, p remoting.Processor, reject func() bool) remoting.Processor {
	return remoting.InlineProcessorFunc(func(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
		if reject != nil && reject() {
			return nil, wireError(code.SystemBusy, remarkRejectRequest)
		}
		if !q.push(&timedTask{enq: time.Now(), ctx: ctx, req: req, p: p}) {
			return nil, wireError(code.SystemBusy, remarkOverload)
		}
		return nil, nil
	})
}

// startTimedExecutor spawns workers goroutines serving q until shutdown;
// queued requests left then are answered SYSTEM_BUSY by the last cleaner
// pass.
func (b *Broker) startTimedExecutor(q *timedExecutor, workers int) {
	for range max(workers, 1) {
		b.goFunc(func() {
			for {
				if t, ok := q.pop(); ok {
					b.runTimed(&t)
					continue
				}
				select {
				case <-q.wake:
				case <-b.stopCh:
					return
				}
			}
		})
	}
}

func (b *Broker) runTimed(t *timedTask) {
	defer func() {
		if r := recover(); r != nil {
			b.lg.Error("process request exception", zap.Any("panic", r), zap.Stack("stack"),
				zap.Int32("code", t.req.Code), zap.String("remoteAddr", t.ctx.Channel.RemoteAddr()))
			t.ctx.Respond(codec.NewResponse(code.SystemError, fmt.Sprint(r)))
		}
	}()
	resp, err := t.p.ProcessRequest(t.ctx, t.req)
	if err != nil {
		t.ctx.Respond(errorResponse(err))
		return
	}
	if resp != nil {
		t.ctx.Respond(resp)
	}
}

// cleanExpired is one BrokerFastFailure pass over q: while pcBusy reports
// true, drain q with PCBUSY_CLEAN_QUEUE; then answer TIMEOUT_CLEAN_QUEUE to
// every head that waited too long.
func (b *Broker) cleanExpired(q *timedExecutor, pcBusy func() bool) {
	now := time.Now()
	for pcBusy != nil && pcBusy() {
		t, ok, left := q.popExpired(now, true)
		if !ok {
			break
		}
		t.ctx.Respond(codec.NewResponse(code.SystemBusy, fmt.Sprintf(remarkPCBusyFmt, now.Sub(t.enq).Milliseconds(), left)))
	}
	for {
		t, ok, left := q.popExpired(now, false)
		if !ok {
			return
		}
		t.ctx.Respond(codec.NewResponse(code.SystemBusy, fmt.Sprintf(remarkTimeoutFmt, now.Sub(t.enq).Milliseconds(), left)))
	}
}

// startFastFailure runs the 10 ms BrokerFastFailure scan over the timed
// executors (after Java's 1 s initial delay) while brokerFastFailureEnable.
func (b *Broker) startFastFailure() {
	b.goFunc(func() {
		if !b.sleepOrStop(time.Second) {
			return
		}
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-b.stopCh:
				return
			case <-t.C:
			}
			if !b.Config().BrokerFastFailureEnable {
				continue
			}
			for pool, tp := range b.timedPools {
				var pcBusy func() bool
				if pool == b.Pools.Send {
					pcBusy = b.store.IsOSPageCacheBusy
				}
				b.cleanExpired(tp.q, pcBusy)
			}
		}
	})
}

// timedPool is a pool's timedExecutor, its worker count and the intake
// rejection check (Java's processor.rejectRequest()).
type timedPool struct {
	q       *timedExecutor
	workers int
	reject  func() bool
}

// initTimedPools builds the executors BrokerFastFailure scans, with the
// queue capacities and thread counts of the Java executors and the
// waitTimeMillsIn*Queue limits (read live).
func (b *Broker) initTimedPools() {
	c := b.Config()
	ms := func(f func(*BrokerConfig) int64) func() time.Duration {
		return func() time.Duration { return time.Duration(f(b.Config())) * time.Millisecond }
	}
	b.timedPools = map[*remoting.Pool]*timedPool{
		b.Pools.Send: {newTimedExecutor("SendMessageThread", c.SendThreadPoolQueueCapacity,
			ms(func(c *BrokerConfig) int64 { return c.WaitTimeMillsInSendQueue })), c.SendMessageThreadPoolNums, b.rejectSend},
		b.Pools.Pull: {newTimedExecutor("PullMessageThread", c.PullThreadPoolQueueCapacity,
			ms(func(c *BrokerConfig) int64 { return c.WaitTimeMillsInPullQueue })), c.PullMessageThreadPoolNums, nil},
		b.Pools.Heartbeat: {newTimedExecutor("HeartbeatThread", c.HeartbeatThreadPoolQueueCapacity,
			ms(func(c *BrokerConfig) int64 { return c.WaitTimeMillsInHeartbeatQueue })), c.HeartbeatThreadPoolNums, nil},
		b.Pools.EndTransaction: {newTimedExecutor("EndTransactionThread", c.EndTransactionPoolQueueCapacity,
			ms(func(c *BrokerConfig) int64 { return c.WaitTimeMillsInTransactionQueue })), c.EndTransactionThreadPoolNums, nil},
		// BrokerFastFailure leaves the query queue alone (no wait limit);
		// it is timed only for queryThreadPoolQueueHeadWaitTimeMills.
		b.Pools.Query: {newTimedExecutor("QueryMessageThread", c.QueryThreadPoolQueueCapacity,
			func() time.Duration { return math.MaxInt64 }), c.QueryMessageThreadPoolNums, nil},
	}
	b.sendQueue = b.timedPools[b.Pools.Send].q
}

// QueueLen is the number of requests waiting for a worker of pool: its
// timedExecutor's queue when it has one (send, pull, heartbeat, end
// transaction, query), else the pool's own queue (GET_BROKER_RUNTIME_INFO).
func (b *Broker) QueueLen(pool *remoting.Pool) int {
	if tp := b.timedPools[pool]; tp != nil {
		return tp.q.Len() + pool.QueueLen()
	}
	return pool.QueueLen()
}

// HeadWait is how long the oldest queued request of pool has waited (0 when
// none, or when pool has no timedExecutor): Java's
// headSlowTimeMills4*ThreadPoolQueue.
func (b *Broker) HeadWait(pool *remoting.Pool) time.Duration {
	tp := b.timedPools[pool]
	if tp == nil {
		return 0
	}
	tp.q.mu.Lock()
	defer tp.q.mu.Unlock()
	if len(tp.q.queue) == 0 {
		return 0
	}
	return time.Since(tp.q.queue[0].enq)
}
