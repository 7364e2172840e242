package filter

// FilterAPI.build and the expression checks of ClientManageProcessor.checkClientConfig.

import (
	"errors"
	"time"

	ifilter "github.com/rocketmq-go/rmq/internal/filter"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
)

// ErrEmptyExpression is returned by BuildSubscription for a non-TAG type
// without expression.
var ErrEmptyExpression = errors.New("filter: expression can't be null")

// BuildSubscription builds the SubscriptionData of a pull that carries its
// own subscription (FilterAPI.build): TAG expressions are split into tags
// and hash codes, other types keep the expression as is (compile it with
// Build). subVersion is now, as Java's field initialiser sets it.
func BuildSubscription(topic, subString, exprType string, now time.Time) (*body.SubscriptionData, error) {
	if exprType == "" || exprType == ifilter.ExpressionTypeTag {
		ts := ifilter.ParseTags(subString)
		return &body.SubscriptionData{Topic: topic, SubString: ts.SubString, TagsSet: ts.Tags, CodeSet: ts.Codes,
			SubVersion: now.UnixMilli(), ExpressionType: ifilter.ExpressionTypeTag}, nil
	}
	if subString == "" {
		return nil, ErrEmptyExpression
	}
	return &body.SubscriptionData{Topic: topic, SubString: subString, SubVersion: now.UnixMilli(), ExpressionType: exprType}, nil
}

// CheckClientConfig answers CHECK_CLIENT_CONFIG for a subscription: TAG (or
// no subscription) is fine; other types need enablePropertyFilter and an
// expression that compiles (SUBSCRIPTION_PARSE_FAILED with the error text).
func CheckClientConfig(sd *body.SubscriptionData, enablePropertyFilter bool) (int32, string) {
	if sd == nil || ifilter.IsTagType(sd.ExpressionType) {
		return code.Success, ""
	}
	if !enablePropertyFilter {
		return code.SystemError, "The broker does not support consumer to filter message by " + sd.ExpressionType
	}
	if _, err := ifilter.Compile(sd.ExpressionType, sd.SubString); err != nil {
		return code.SubscriptionParseFailed, err.Error()
	}
	return code.Success, ""
}
