package proxy

// The consume side of MessagingService (QueryAssignment, ReceiveMessage,
// AckMessage, ChangeInvisibleDuration, ForwardMessageToDeadLetterQueue), as
// 5.x's proxy serves it over the broker's POP codes. Java: proxy
// grpc/v2/consumer/*Activity, grpc/v2/route/RouteActivity.queryAssignment,
// processor/ConsumerProcessor, processor/ProducerProcessor.forwardMessageToDeadLetterQueue.

import (
	"context"
	"errors"
	"regexp"
	"strings"
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
	}
}

// maxPopBatch is the most messages one POP_MESSAGE asks for
// (ProxyUtils.MAX_MSG_NUMS_FOR_POP_REQUEST).
const maxPopBatch = 32

// consumeBackend is what the consume side needs from the proxy's Backend.
type consumeBackend interface {
	// callBroker sends cmd to the master of brokerName; ctx bounds the wait.
	callBroker(ctx context.Context, brokerName string, cmd *codec.RemotingCommand) (*codec.RemotingCommand, error)
	// topicRoute is the name server's route of topic.
	topicRoute(ctx context.Context, topic string) (*body.TopicRouteData, error)
	// groupOrderly reports whether group consumes orderly (its
	// subscription group config's consumeMessageOrderly).
	groupOrderly(ctx context.Context, group string) bool
}

// consumerSettings is what a receive needs from the client's settings.
type consumerSettings struct {
	fifo           bool
	maxAttempts    int32         // delivery attempts before the DLQ; 0: no limit
	requestTimeout time.Duration // the client's request timeout
}

// statusError carries a v2 status code and message out of a consume step.
type statusError struct {
	code apiv2.Code
	msg  string
}

func (e *statusError) Error() string { return e.code.String() + ": " + e.msg }

func errStatus(c apiv2.Code, msg string) error { return &statusError{code: c, msg: msg} }

// statusOf turns an error of a consume step into a v2 Status, as 5.x's
// ResponseBuilder.buildStatus(Throwable) does for the cases we produce.
func statusOf(err error) *apiv2.Status {
	var se *statusError
	switch {
	case err == nil:
		return okStatus()
	case errors.As(err, &se):
		return &apiv2.Status{Code: se.code, Message: se.msg}
	case errors.Is(err, context.DeadlineExceeded):
		return &apiv2.Status{Code: apiv2.Code_PROXY_TIMEOUT, Message: err.Error()}
	}
	return &apiv2.Status{Code: apiv2.Code_INTERNAL_SERVER_ERROR, Message: err.Error()}
}

func okStatus() *apiv2.Status {
	return &apiv2.Status{Code: apiv2.Code_OK, Message: apiv2.Code_OK.String()}
}

// codeOfRemoting maps a broker response code to a v2 code
// (ResponseBuilder.RESPONSE_CODE_MAPPING; topic-not-exist as
// TopicRouteHelper.isTopicNotExistError).
func codeOfRemoting(c int32) apiv2.Code {
	switch c {
	case code.Success:
		return apiv2.Code_OK
	case code.SystemBusy:
		return apiv2.Code_TOO_MANY_REQUESTS
	case code.RequestCodeNotSupported:
		return apiv2.Code_NOT_IMPLEMENTED
	case code.SubscriptionGroupNotExist:
		return apiv2.Code_CONSUMER_GROUP_NOT_FOUND
	case code.TopicNotExist:
		return apiv2.Code_TOPIC_NOT_FOUND
	}
	return apiv2.Code_INTERNAL_SERVER_ERROR
}

// remotingStatus is the v2 status of a broker answer (buildStatus(code, remark)).
func remotingStatus(c int32, remark string) *apiv2.Status {
	if remark == "" {
		remark = itoa(int64(c))
	}
	return &apiv2.Status{Code: codeOfRemoting(c), Message: remark}
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
}

func newConsumer(lg *zap.Logger, cfg ConsumeConfig, b consumeBackend) *consumer {
	if lg == nil {
		lg = zap.NewNop()
	}
	return &consumer{lg: lg, cfg: cfg, backend: b, now: time.Now}
}

// permRead is PermName.PERM_READ.
const permRead = 4

// hasMaster reports whether the route lists a master address for brokerName.
func hasMaster(route *body.TopicRouteData, brokerName string) bool {
	for _, bd := range route.BrokerDatas {
		if bd.BrokerName == brokerName {
			return bd.BrokerAddrs[0] != ""
		}
	}
	return false
}

// Names allowed for topics and groups (5.x Validators).
var validName = regexp.MustCompile(`^[%|a-zA-Z0-9_-]+$`)

const (
	maxTopicLength = 127
	maxGroupLength = 255
)

// validateTopicAndGroup checks names as 5.x's GrpcValidator does: blank,
// too long, illegal characters, system topics and groups.
func validateTopicAndGroup(topic, group string) error {
	switch {
	case topic == "":
		return errStatus(apiv2.Code_ILLEGAL_TOPIC, "The specified topic is blank.")
	case len(topic) > maxTopicLength:
		return errStatus(apiv2.Code_ILLEGAL_TOPIC, "The specified topic is longer than topic max length.")
	case !validName.MatchString(topic):
		return errStatus(apiv2.Code_ILLEGAL_TOPIC, "The specified topic["+topic+
			"] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$")
	case isSystemTopic(topic):
		return errStatus(apiv2.Code_ILLEGAL_TOPIC, "cannot access system topic")
	case group == "":
		return errStatus(apiv2.Code_ILLEGAL_CONSUMER_GROUP, "the specified group is blank")
	case len(group) > maxGroupLength:
		return errStatus(apiv2.Code_ILLEGAL_CONSUMER_GROUP, "the specified group is longer than group max length 255.")
	case !validName.MatchString(group):
		return errStatus(apiv2.Code_ILLEGAL_CONSUMER_GROUP, "the specified group["+group+
			"] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$")
	case strings.HasPrefix(group, "CID_RMQ_SYS_"):
		return errStatus(apiv2.Code_ILLEGAL_CONSUMER_GROUP, "cannot use system consumer group")
	}
	return nil
}

// isSystemTopic: 5.x TopicValidator's system topics (rmq_sys_ prefix and
// the fixed names).
func isSystemTopic(t string) bool {
	if strings.HasPrefix(t, "rmq_sys_") {
		return true
	}
	switch t {
	case "TBW102", "SCHEDULE_TOPIC_XXXX", "BenchmarkTest", "RMQ_SYS_TRANS_HALF_TOPIC", "RMQ_SYS_TRACE_TOPIC",
		"RMQ_SYS_TRANS_OP_HALF_TOPIC", "TRANS_CHECK_MAX_TIME_TOPIC", "SELF_TEST_TOPIC", "OFFSET_MOVED_EVENT",
		"CHECKPOINT_TOPIC":
		return true
	}
	return false
}
