package topic

import (
	"fmt"
	"strings"

	"github.com/rocketmq-go/rmq/remoting/code"
)

// System topic names of TopicValidator and MixAll.
const (
	AutoCreateTopicKeyTopic     = "TBW102"
	ScheduleTopic               = "SCHEDULE_TOPIC_XXXX"
	BenchmarkTopic              = "BenchmarkTest"
	TransHalfTopic              = "RMQ_SYS_TRANS_HALF_TOPIC"
	TraceTopic                  = "RMQ_SYS_TRACE_TOPIC"
	TransOpHalfTopic            = "RMQ_SYS_TRANS_OP_HALF_TOPIC"
	TransCheckMaxTimeTopic      = "TRANS_CHECK_MAX_TIME_TOPIC"
	SelfTestTopic               = "SELF_TEST_TOPIC"
	OffsetMovedEventTopic       = "OFFSET_MOVED_EVENT"
	SystemTopicPrefix           = "rmq_sys_"
	ReplyTopicPostfix           = "REPLY_TOPIC"
	RetryGroupTopicPrefix       = "%RETRY%"
	DLQGroupTopicPrefix         = "%DLQ%"
	TopicMaxLength              = 127
	DefaultTopicFilterType      = "SINGLE_TAG"
	scheduleTopicQueueNum       = 18
	benchmarkTopicQueueNum      = 1024
	defaultTopicConfigQueueNums = 16 // new TopicConfig(name) default
)

// PermName bits (common/constant/PermName.java).
const (
	PermPriority = 8
	PermRead     = 4
	PermWrite    = 2
	PermInherit  = 1
)

// IsInherited is PermName.isInherited.
func IsInherited(perm int32) bool { return perm&PermInherit == PermInherit }

// IsReadable is PermName.isReadable.
func IsReadable(perm int32) bool { return perm&PermRead == PermRead }

// IsWriteable is PermName.isWriteable.
func IsWriteable(perm int32) bool { return perm&PermWrite == PermWrite }

// Topic sys flag bits (common/sysflag/TopicSysFlag.java).
const (
	FlagUnit    = 0x1
	FlagUnitSub = 0x2
)

// builtinSystemTopics is TopicValidator's static SYSTEM_TOPIC_SET.
var builtinSystemTopics = map[string]bool{
	AutoCreateTopicKeyTopic: true, ScheduleTopic: true, BenchmarkTopic: true, TransHalfTopic: true,
	TraceTopic: true, TransOpHalfTopic: true, TransCheckMaxTimeTopic: true, SelfTestTopic: true,
	OffsetMovedEventTopic: true,
}

// notAllowedSendTopics is TopicValidator.NOT_ALLOWED_SEND_TOPIC_SET.
var notAllowedSendTopics = map[string]bool{
	ScheduleTopic: true, TransHalfTopic: true, TransOpHalfTopic: true, TransCheckMaxTimeTopic: true,
	SelfTestTopic: true, OffsetMovedEventTopic: true,
}

// ValidationError is the response code and remark Java puts on a response
// when a topic fails validation; processors answer with exactly these.
type ValidationError struct {
	Code   int32
	Remark string
}

func (e *ValidationError) Error() string { return "topic: " + e.Remark }

// IsTopicOrGroupIllegal is TopicValidator.isTopicOrGroupIllegal: true when
// any character is outside ^[%|a-zA-Z0-9_-]+$.
func IsTopicOrGroupIllegal(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c == '%' || c == '-' || c == '_' || c == '|' ||
			(c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')
		if !ok {
			return true
		}
	}
	return false
}

// ValidateTopic is TopicValidator.validateTopic: nil, or a *ValidationError
// with SYSTEM_ERROR and Java's remark.
func ValidateTopic(topic string) error {
	switch {
	case strings.TrimSpace(topic) == "":
		return &ValidationError{Code: code.SystemError, Remark: "The specified topic is blank."}
	case IsTopicOrGroupIllegal(topic):
		return &ValidationError{Code: code.SystemError,
			Remark: "The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"}
	case len(topic) > TopicMaxLength:
		return &ValidationError{Code: code.SystemError, Remark: "The specified topic is longer than topic max length."}
	}
	return nil
}

// IsNotAllowedSendTopic is TopicValidator.isNotAllowedSendTopic.
func IsNotAllowedSendTopic(topic string) bool { return notAllowedSendTopics[topic] }

// CheckSendAllowed returns NO_PERMISSION with Java's remark for topics
// clients may not send to, else nil.
func CheckSendAllowed(topic string) error {
	if IsNotAllowedSendTopic(topic) {
		return &ValidationError{Code: code.NoPermission,
			Remark: fmt.Sprintf("Sending message to topic[%s] is forbidden.", topic)}
	}
	return nil
}

// IsSystemTopic is TopicValidator.isSystemTopic, with the topics this
// manager added at start (cluster, broker, reply, trace) counted too.
func (m *Manager) IsSystemTopic(topic string) bool {
	if builtinSystemTopics[topic] || strings.HasPrefix(topic, SystemTopicPrefix) {
		return true
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.systemTopics[topic]
}

// CheckSystemTopicConflict returns SYSTEM_ERROR "The topic[x] is conflict
// with system topic." for system topics (UPDATE_AND_CREATE_TOPIC, DELETE), else nil.
func (m *Manager) CheckSystemTopicConflict(topic string) error {
	if m.IsSystemTopic(topic) {
		return &ValidationError{Code: code.SystemError,
			Remark: fmt.Sprintf("The topic[%s] is conflict with system topic.", topic)}
	}
	return nil
}

// RetryTopic is MixAll.getRetryTopic.
func RetryTopic(group string) string { return RetryGroupTopicPrefix + group }

// DLQTopic is MixAll.getDLQTopic.
func DLQTopic(group string) string { return DLQGroupTopicPrefix + group }

// IsRetryTopic reports the %RETRY% prefix.
func IsRetryTopic(topic string) bool { return strings.HasPrefix(topic, RetryGroupTopicPrefix) }
