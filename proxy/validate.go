package proxy

import (
	"strings"
	"unicode"

	"github.com/rocketmq-go/rmq/internal/admin"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
)

// Limits of names, as 5.x's GrpcValidator / TopicValidator.
const (
	maxTopicLength = 127
	maxGroupLength = 255
)

func validName(s string) bool {
	for _, r := range s {
		if !(r == '%' || r == '|' || r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// validateTopic is 5.x's GrpcValidator.validateTopic.
func validateTopic(t *apiv2.Resource) error {
	name := t.GetName()
	switch {
	case strings.TrimSpace(name) == "":
		return errorf(apiv2.Code_ILLEGAL_TOPIC, "topic name cannot be empty")
	case !validName(name):
		return errorf(apiv2.Code_ILLEGAL_TOPIC, "topic name %q contains illegal characters", name)
	case len(name) > maxTopicLength:
		return errorf(apiv2.Code_ILLEGAL_TOPIC, "topic name cannot exceed %d characters", maxTopicLength)
	case admin.IsSystemTopic(name):
		return errorf(apiv2.Code_ILLEGAL_TOPIC, "cannot access system topic %q", name)
	}
	return nil
}

// validateConsumerGroup is 5.x's GrpcValidator.validateConsumerGroup.
func validateConsumerGroup(g *apiv2.Resource) error {
	name := g.GetName()
	switch {
	case strings.TrimSpace(name) == "":
		return errorf(apiv2.Code_ILLEGAL_CONSUMER_GROUP, "consumer group name cannot be empty")
	case !validName(name):
		return errorf(apiv2.Code_ILLEGAL_CONSUMER_GROUP, "consumer group %q contains illegal characters", name)
	case len(name) > maxGroupLength:
		return errorf(apiv2.Code_ILLEGAL_CONSUMER_GROUP, "consumer group cannot exceed %d characters", maxGroupLength)
	case admin.IsSystemGroup(name):
		return errorf(apiv2.Code_ILLEGAL_CONSUMER_GROUP, "cannot use system consumer group %q", name)
	}
	return nil
}

// validateTag is 5.x's GrpcValidator.validateTag.
func validateTag(tag string) error {
	if tag == "" {
		return nil
	}
	if strings.TrimSpace(tag) == "" {
		return errorf(apiv2.Code_ILLEGAL_MESSAGE_TAG, "tag cannot be the char sequence of whitespace")
	}
	if strings.Contains(tag, "|") {
		return errorf(apiv2.Code_ILLEGAL_MESSAGE_TAG, "tag cannot contain '|'")
	}
	if hasControl(tag) {
		return errorf(apiv2.Code_ILLEGAL_MESSAGE_TAG, "tag cannot contain control character")
	}
	return nil
}

func hasControl(s string) bool {
	for _, r := range s {
		if unicode.IsControl(r) {
			return true
		}
	}
	return false
}
