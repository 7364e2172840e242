package filter

// ExpressionMessageFilter and ExpressionForRetryMessageFilter mirror the Java
// classes of the same names.

import (
	"strings"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/store"
	ifilter "github.com/rocketmq-go/rmq/internal/filter"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/remoting/body"
)

// RetryGroupTopicPrefix starts every retry topic (MixAll.RETRY_GROUP_TOPIC_PREFIX).
const RetryGroupTopicPrefix = "%RETRY%"

// ExpressionMessageFilter is the store.MessageFilter of one pull.
type ExpressionMessageFilter struct {
	sub        *body.SubscriptionData
	filterData *ConsumerFilterData
	manager    *ConsumerFilterManager
	retry      bool
	lg         *zap.Logger
}

var _ store.MessageFilter = (*ExpressionMessageFilter)(nil)

// NewExpressionMessageFilter filters by sub (nil: everything matches) and,
// for SQL92, by filterData (nil: everything matches). manager is used only
// by the retry variant; lg may be nil.
func NewExpressionMessageFilter(sub *body.SubscriptionData, filterData *ConsumerFilterData,
	manager *ConsumerFilterManager, lg *zap.Logger) *ExpressionMessageFilter {
	if lg == nil {
		lg = zap.NewNop()
	}
	return &ExpressionMessageFilter{sub: sub, filterData: filterData, manager: manager, lg: lg}
}

// NewExpressionForRetryMessageFilter is the filterSupportRetry variant: on a
// %RETRY% subscription each message is evaluated with the group's SQL92
// filter of its original topic (property RETRY_TOPIC).
func NewExpressionForRetryMessageFilter(sub *body.SubscriptionData, filterData *ConsumerFilterData,
	manager *ConsumerFilterManager, lg *zap.Logger) *ExpressionMessageFilter {
	f := NewExpressionMessageFilter(sub, filterData, manager, lg)
	f.retry = true
	return f
}

// IsMatchedByConsumeQueue matches TAG subscriptions by the unit's tagsCode.
// SQL92 passes here: without bloom bitmaps it is decided on the commit log.
func (f *ExpressionMessageFilter) IsMatchedByConsumeQueue(tagsCode int64, _ *store.CqExtUnit) bool {
	if f.sub == nil || f.sub.ClassFilterMode {
		return true
	}
	if ifilter.IsTagType(f.sub.ExpressionType) {
		return ifilter.MatchTagsCode(f.sub.SubString, f.sub.CodeSet, tagsCode)
	}
	return true
}

// UsesCommitLogProperties implements store.PropertiesMatcher: false when
// IsMatchedByCommitLog accepts every message without reading it.
func (f *ExpressionMessageFilter) UsesCommitLogProperties() bool {
	if f.sub == nil || f.sub.ClassFilterMode {
		return false
	}
	return f.isRetry() || !ifilter.IsTagType(f.sub.ExpressionType)
}

// isRetry reports whether this is the retry variant on a %RETRY%
// subscription (each message judged by its original topic's filter).
func (f *ExpressionMessageFilter) isRetry() bool {
	return f.retry && strings.HasPrefix(f.sub.Topic, RetryGroupTopicPrefix)
}

// IsMatchedByCommitLog evaluates SQL92 over the message properties; msg is
// a stored record, used only when properties is nil.
func (f *ExpressionMessageFilter) IsMatchedByCommitLog(msg []byte, properties map[string]string) bool {
	if !f.UsesCommitLogProperties() {
		return true
	}
	isRetry := f.isRetry()
	data := f.filterData
	if isRetry {
		if properties == nil {
			properties = recordProperties(msg)
		}
		group := strings.TrimPrefix(f.sub.Topic, RetryGroupTopicPrefix)
		data = nil
		if f.manager != nil {
			data = f.manager.Get(properties[message.PropertyRetryTopic], group)
		}
	}
	if data == nil || data.Expression == "" || data.Compiled == nil {
		return true
	}
	if properties == nil {
		properties = recordProperties(msg)
	}
	ok, err := data.Compiled.Match(properties)
	if err != nil {
		if ce := f.lg.Check(zap.DebugLevel, "message filter error"); ce != nil {
			ce.Write(zap.String("group", data.ConsumerGroup), zap.String("topic", data.Topic),
				zap.String("expression", data.Expression), zap.Error(err))
		}
		return false
	}
	return ok
}

// recordProperties decodes the properties of a stored record; nil when the
// record is absent or malformed.
func recordProperties(msg []byte) map[string]string {
	if msg == nil {
		return nil
	}
	m, err := message.DecodeRecord(msg, false)
	if err != nil {
		return nil
	}
	return m.Properties
}
