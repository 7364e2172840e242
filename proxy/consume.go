package proxy

// The consume side of MessagingService (QueryAssignment, ReceiveMessage,
// AckMessage, ChangeInvisibleDuration, ForwardMessageToDeadLetterQueue), as
// 5.x's proxy serves it over the broker's POP codes. Java: proxy
// grpc/v2/consumer/*Activity, grpc/v2/route/RouteActivity.queryAssignment,
// processor/ConsumerProcessor, processor/ProducerProcessor.forwardMessageToDeadLetterQueue.

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// ConsumeConfig holds the consume-side settings, with 5.x ProxyConfig's
// names and defaults.
type ConsumeConfig struct {
	// MinLongPollingTimeoutMillis and MaxLongPollingTimeoutMillis bound a
	// receive's long polling (grpcClientConsumerMin/MaxLongPollingTimeoutMillis).
	MinLongPollingTimeoutMillis int64 `json:"grpcClientConsumerMinLongPollingTimeoutMillis"`
	MaxLongPollingTimeoutMillis int64 `json:"grpcClientConsumerMaxLongPollingTimeoutMillis"`
	// MinInvisibleTimeMillsForRecv is the smallest invisible duration a
	// receive without auto renewal may ask for.
	MinInvisibleTimeMillsForRecv int64 `json:"minInvisibleTimeMillsForRecv"`
	// MaxInvisibleTimeMills is the largest invisible duration (≤ 0: none).
	MaxInvisibleTimeMills int64 `json:"maxInvisibleTimeMills"`
	// DefaultInvisibleTimeMills is used for auto-renewed receives.
	DefaultInvisibleTimeMills int64 `json:"defaultInvisibleTimeMills"`
	// EnableProxyAutoRenew lets the proxy renew the handles of auto_renew
	// receives (push consumers) until they are acked.
	EnableProxyAutoRenew bool `json:"enableProxyAutoRenew"`
	// RenewAheadTimeMillis: a held handle is renewed this long before it
	// expires; RenewMaxTimeMillis: after this long it is left to expire.
	RenewAheadTimeMillis int64 `json:"renewAheadTimeMillis"`
	RenewMaxTimeMillis   int64 `json:"renewMaxTimeMillis"`
	// RenewSchedulePeriodMillis is how often held handles are looked at.
	RenewSchedulePeriodMillis int64 `json:"renewSchedulePeriodMillis"`
}

// NewConsumeConfig returns 5.x's defaults.
func NewConsumeConfig() ConsumeConfig {
	return ConsumeConfig{
		MinLongPollingTimeoutMillis:  5_000,
		MaxLongPollingTimeoutMillis:  20_000,
		MinInvisibleTimeMillsForRecv: 10_000,
		MaxInvisibleTimeMills:        12 * 3600 * 1000,
		DefaultInvisibleTimeMills:    60_000,
		EnableProxyAutoRenew:         true,
		RenewAheadTimeMillis:         10_000,
		RenewMaxTimeMillis:           3 * 3600 * 1000,
		RenewSchedulePeriodMillis:    5_000,
	}
}

// maxPopBatch is the most messages one POP_MESSAGE asks for
// (ProxyUtils.MAX_MSG_NUMS_FOR_POP_REQUEST).
const maxPopBatch = 32

// consumeBackend is what the consume side needs from the proxy's Backend.
type consumeBackend interface {
	// callBroker sends cmd to the master of brokerName; ctx bounds the wait.
	callBroker(ctx context.Context, brokerName string, cmd *codec.RemotingCommand) (*codec.RemotingCommand, error)
	// callBrokerLate is callBroker whose answer, when it comes after the
	// caller left (ctx done), is handed to late instead of being dropped.
	callBrokerLate(ctx context.Context, brokerName string, cmd *codec.RemotingCommand,
		late func(*codec.RemotingCommand)) (*codec.RemotingCommand, error)
	// topicRoute is the name server's route of topic.
	topicRoute(ctx context.Context, topic string) (*body.TopicRouteData, error)
	// groupOrderly reports whether group consumes orderly (its
	// subscription group config's consumeMessageOrderly).
	groupOrderly(ctx context.Context, group string) bool
}

// consumerSettings is what a receive needs from the client's settings.
type consumerSettings struct {
	clientID       string // the receiving client (for auto renewal)
	fifo           bool
	maxAttempts    int32         // delivery attempts before the DLQ; 0: no limit
	requestTimeout time.Duration // the client's request timeout
}

func errStatus(c apiv2.Code, msg string) error { return &Error{Code: c, Message: msg} }

// statusOf is StatusOf, plus a context deadline as PROXY_TIMEOUT.
func statusOf(err error) *apiv2.Status {
	if errors.Is(err, context.DeadlineExceeded) {
		return newStatus(apiv2.Code_PROXY_TIMEOUT, err.Error())
	}
	return StatusOf(err)
}

// remotingStatus is the v2 status of a broker answer (buildStatus(code, remark)).
func remotingStatus(c int32, remark string) *apiv2.Status {
	if remark == "" {
		remark = itoa(int64(c))
	}
	if c == code.TopicNotExist {
		return newStatus(apiv2.Code_TOPIC_NOT_FOUND, remark)
	}
	return newStatus(CodeOfRemoting(c), remark)
}

// brokerError is a non-success broker answer as an error.
func brokerError(resp *codec.RemotingCommand) error {
	st := remotingStatus(resp.Code, resp.Remark)
	return errStatus(st.Code, st.Message)
}

// consumer serves the consume-side RPCs.
type consumer struct {
	lg      *zap.Logger
	cfg     ConsumeConfig
	backend consumeBackend
	renew   *renewer // auto-renewal of push consumers' handles; nil: off
	now     func() time.Time
	rr      atomic.Uint32 // round robin over readable brokers
	// spawn runs the background broker calls of a receive (acks of
	// filtered messages, DLQ forwards, nacks); the service sets its
	// goFunc so that Shutdown waits for them. Each is bounded by 3 s.
	spawn func(func()) bool
}

func newConsumer(lg *zap.Logger, cfg ConsumeConfig, b consumeBackend) *consumer {
	if lg == nil {
		lg = zap.NewNop()
	}
	return &consumer{lg: lg, cfg: cfg, backend: b, now: time.Now,
		spawn: func(f func()) bool { go f(); return true }}
}

// hasMaster reports whether the route lists a master address for brokerName.
func hasMaster(route *body.TopicRouteData, brokerName string) bool {
	for _, bd := range route.BrokerDatas {
		if bd.BrokerName == brokerName {
			return bd.BrokerAddrs[0] != ""
		}
	}
	return false
}

// validateTopicAndGroup is 5.x's GrpcValidator.validateTopicAndConsumerGroup.
func validateTopicAndGroup(topic, group string) error {
	if err := validateTopic(&apiv2.Resource{Name: topic}); err != nil {
		return err
	}
	return validateConsumerGroup(&apiv2.Resource{Name: group})
}
