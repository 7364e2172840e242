package acl

// Resources of the 5.x POP consumer codes. 4.9.8 has none of these codes;
// 5.x's ACL 1.0 (PlainAccessResource.parse) checks only their signature,
// and 5.x's ACL 2.0 asks SUB on the topic and the group of the POP header
// codes (the RocketMQAction / RocketMQResource annotations of their
// request headers) and nothing of the body codes. We ask SUB on the topic
// and the group of every one of them: each reads, hides or acknowledges a
// group's messages of a topic (see docs/compat.md, ACL 1.0).

import (
	"encoding/json"
	"strings"
)

// addPopHeader: topic (header "topic") and group ("consumerGroup") need SUB.
func (r *Resource) addPopHeader(ext map[string]string) {
	g, hasGroup := ext["consumerGroup"]
	r.add(retryPrefix+g, hasGroup, Sub)
	if t, ok := ext["topic"]; ok {
		r.addPopTopic(t, g, hasGroup)
	}
}

// addPopTopic adds topic t of a request by group g. An ACK or
// CHANGE_INVISIBLE of a revived message names the group's POP retry topic
// (%RETRY%g, %RETRY%g_topic or %RETRY%g+topic): the group's SUB covers it,
// and the original topic behind it needs SUB too. Any other retry topic is
// checked as the group it names, as 4.9.8 checks every %RETRY% resource.
func (r *Resource) addPopTopic(t, g string, hasGroup bool) {
	if hasGroup && strings.HasPrefix(t, retryPrefix+g) {
		rest := t[len(retryPrefix)+len(g):]
		if rest == "" {
			return
		}
		if rest[0] == '_' || rest[0] == '+' {
			r.add(rest[1:], true, Sub)
			return
		}
	}
	r.add(t, true, Sub)
}

// addBatchAck: BATCH_ACK_MESSAGE (BatchAckMessageRequestBody) names a
// topic ("t") and group ("c") per ack; each needs SUB. An empty body acks
// nothing; a body the broker could not decode is refused here.
func (r *Resource) addBatchAck(data []byte) error {
	if len(data) == 0 {
		return nil
	}
	var b struct {
		Acks []struct {
			Group string `json:"c"`
			Topic string `json:"t"`
		} `json:"acks"`
	}
	if err := json.Unmarshal(data, &b); err != nil {
		return refusal(frameParse, err.Error())
	}
	for _, a := range b.Acks {
		r.add(retryPrefix+a.Group, true, Sub)
		r.addPopTopic(a.Topic, a.Group, true)
	}
	return nil
}

// addTopicGroupBody: QUERY_ASSIGNMENT (QueryAssignmentRequestBody) and
// SET_MESSAGE_REQUEST_MODE (SetMessageRequestModeRequestBody) name one
// topic and one group in their JSON body; both need SUB.
func (r *Resource) addTopicGroupBody(data []byte) error {
	var b struct {
		Topic         string `json:"topic"`
		ConsumerGroup string `json:"consumerGroup"`
	}
	if err := json.Unmarshal(data, &b); err != nil {
		return refusal(frameParse, err.Error())
	}
	r.add(retryPrefix+b.ConsumerGroup, true, Sub)
	r.addPopTopic(b.Topic, b.ConsumerGroup, true)
	return nil
}
