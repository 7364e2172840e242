package header

// Pull headers: Java 4.9.8 PullMessageRequestHeader / PullMessageResponseHeader
// (FastCodesHeader in Java, same keys), plus 5.x optional keys.

// PullMessageRequestHeader is PULL_MESSAGE (11) and LITE_PULL_MESSAGE (361).
type PullMessageRequestHeader struct {
	ConsumerGroup        string `ext:"consumerGroup,required"`
	Topic                string `ext:"topic,required"`
	QueueID              int32  `ext:"queueId,required"`
	QueueOffset          int64  `ext:"queueOffset,required"`
	MaxMsgNums           int32  `ext:"maxMsgNums,required"`
	SysFlag              int32  `ext:"sysFlag,required"`
	CommitOffset         int64  `ext:"commitOffset,required"`
	SuspendTimeoutMillis int64  `ext:"suspendTimeoutMillis,required"`
	// Subscription is the filter expression; "" and absent are alike.
	Subscription   string `ext:"subscription"`
	SubVersion     int64  `ext:"subVersion,required"`
	ExpressionType string `ext:"expressionType"`
	// MaxMsgBytes, RequestSource and ProxyFrowardClientID (sic, Java's
	// spelling) are 5.x only.
	MaxMsgBytes          *int32 `ext:"maxMsgBytes"`
	RequestSource        *int32 `ext:"requestSource"`
	ProxyFrowardClientID string `ext:"proxyFrowardClientId"`
	Bname                string `ext:"bname"`
}

// PullMessageResponseHeader answers PULL_MESSAGE. The four plain fields are
// required by both Java and Go clients on every pull response; the pointer
// fields are 5.x optional keys.
type PullMessageResponseHeader struct {
	SuggestWhichBrokerID int64  `ext:"suggestWhichBrokerId,required"`
	NextBeginOffset      int64  `ext:"nextBeginOffset,required"`
	MinOffset            int64  `ext:"minOffset,required"`
	MaxOffset            int64  `ext:"maxOffset,required"`
	OffsetDelta          *int64 `ext:"offsetDelta"`
	TopicSysFlag         *int32 `ext:"topicSysFlag"`
	GroupSysFlag         *int32 `ext:"groupSysFlag"`
	ForbiddenType        *int32 `ext:"forbiddenType"`
}
