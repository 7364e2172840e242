package acl

import (
	"errors"
	"strings"
	"testing"

	"github.com/rocketmq-go/rmq/remoting/code"
)

// The 5.x POP consumer codes need SUB on their topic and group, from the
// header or the body, against the golden accounts (RocketMQUser: AclTopic
// PUB|SUB, AclDenyTopic DENY, other topics DENY; acl_pubonly_group PUB,
// acl_deny_group DENY, other groups SUB).
func TestACLValidatePopCodes(t *testing.T) {
	p, _ := newTestPlain(t, "")
	const user, userSK = "RocketMQUser", "user-secret-1234"
	remarkDenyGroup := strings.Replace(remarkNoSubGroup, "acl_pubonly_group", "acl_deny_group", 1)
	hdr := func(topic, group string) map[string]string {
		return map[string]string{"consumerGroup": group, "topic": topic, "queueId": "0"}
	}
	type tc struct {
		name   string
		code   int32
		ext    map[string]string
		body   string
		remark string // "" = allowed
	}
	var cases []tc
	for _, c := range []int32{code.PopMessage, code.PeekMessage, code.AckMessage, code.ChangeMessageInvisibletime,
		code.Notification, code.PollingInfo} {
		n := code.RequestName(c)
		cases = append(cases,
			tc{n + " permitted", c, hdr("AclTopic", "acl_consumer_group"), "", ""},
			tc{n + " denied topic", c, hdr("AclDenyTopic", "acl_consumer_group"), "", remarkDenyTopic},
			tc{n + " group without SUB", c, hdr("AclTopic", "acl_pubonly_group"), "", remarkNoSubGroup},
		)
	}
	for _, c := range []int32{code.QueryAssignment, code.SetMessageRequestMode} {
		n := code.RequestName(c)
		cases = append(cases,
			tc{n + " permitted", c, nil, `{"consumerGroup":"acl_consumer_group","topic":"AclTopic"}`, ""},
			tc{n + " denied topic", c, nil, `{"consumerGroup":"acl_consumer_group","topic":"AclDenyTopic"}`, remarkDenyTopic},
			tc{n + " group without SUB", c, nil, `{"consumerGroup":"acl_pubonly_group","topic":"AclTopic"}`, remarkNoSubGroup},
		)
	}
	cases = append(cases,
		tc{"ack own pop retry topic v1", code.AckMessage, hdr("%RETRY%acl_consumer_group_AclTopic", "acl_consumer_group"), "", ""},
		tc{"ack own pop retry topic v2", code.AckMessage, hdr("%RETRY%acl_consumer_group+AclTopic", "acl_consumer_group"), "", ""},
		tc{"ack own retry topic", code.AckMessage, hdr("%RETRY%acl_consumer_group", "acl_consumer_group"), "", ""},
		tc{"ack own retry topic of a denied topic", code.AckMessage, hdr("%RETRY%acl_consumer_group+AclDenyTopic", "acl_consumer_group"), "", remarkDenyTopic},
		tc{"ack another group's retry topic", code.AckMessage, hdr("%RETRY%acl_deny_group", "acl_consumer_group"), "", remarkDenyGroup},
		tc{"batch ack permitted", code.BatchAckMessage, nil,
			`{"acks":[{"c":"acl_consumer_group","t":"AclTopic","q":0,"so":0,"b":"AQ=="},{"c":"g2","t":"%RETRY%g2_AclTopic"}],"brokerName":"b"}`, ""},
		tc{"batch ack one denied topic", code.BatchAckMessage, nil,
			`{"acks":[{"c":"acl_consumer_group","t":"AclTopic"},{"c":"acl_consumer_group","t":"AclDenyTopic"}]}`, remarkDenyTopic},
		tc{"batch ack one denied group", code.BatchAckMessage, nil,
			`{"acks":[{"c":"acl_consumer_group","t":"AclTopic"},{"c":"acl_deny_group","t":"AclTopic"}]}`, remarkDenyGroup},
		tc{"batch ack empty", code.BatchAckMessage, nil, "", ""},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var data []byte
			if c.body != "" {
				data = []byte(c.body)
			}
			r, err := Parse(signed(c.code, c.ext, data, user, userSK), "127.0.0.1:40000")
			if err == nil {
				err = p.Validate(r)
			}
			got := ""
			var ae *Error
			if errors.As(err, &ae) {
				got = ae.Remark()
			} else if err != nil {
				t.Fatalf("error %T %v", err, err)
			}
			if got != c.remark {
				t.Errorf("remark\n got %q\nwant %q", got, c.remark)
			}
		})
	}
}

// A POP body the broker could not decode names no resource to check: it is
// refused as parse refuses an undecodable heartbeat, never let through.
func TestACLValidatePopBadBody(t *testing.T) {
	p, _ := newTestPlain(t, "")
	for c, bodies := range map[int32][]string{
		code.BatchAckMessage:       {"{", `{"acks":5}`, `[1]`},
		code.QueryAssignment:       {"{", `{"topic":5}`, `[1]`},
		code.SetMessageRequestMode: {"{", `{"consumerGroup":[]}`, `[1]`},
	} {
		for _, body := range bodies {
			r, err := Parse(signed(c, nil, []byte(body), "RocketMQUser", "user-secret-1234"), "127.0.0.1:40000")
			if err == nil {
				err = p.Validate(r)
				t.Fatalf("%s body %q: parsed, validate %v", code.RequestName(c), body, err)
			}
			var ae *Error
			if !errors.As(err, &ae) || !strings.HasPrefix(ae.Remark(), aclExceptionName+": ") ||
				!strings.HasSuffix(ae.Remark(), ", "+frameParse) {
				t.Errorf("%s body %q: %v", code.RequestName(c), body, err)
			}
		}
	}
	if _, err := Parse(signed(code.QueryAssignment, nil, nil, "RocketMQUser", "user-secret-1234"), "127.0.0.1:40000"); err == nil {
		t.Error("QUERY_ASSIGNMENT without a body parsed")
	}
}

// A revived message is acked under the group's POP retry topic; with every
// default DENY, SUB on the group and the original topic is enough.
func TestACLValidatePopRetryTopicNeedsNoGrantOfItsOwn(t *testing.T) {
	p, _ := newTestPlain(t, `accounts:
  - accessKey: StrictUser
    secretKey: strict-secret-1
    defaultTopicPerm: DENY
    defaultGroupPerm: DENY
    topicPerms:
      - AclTopic=SUB
    groupPerms:
      - cg=SUB
`)
	for _, topic := range []string{"%RETRY%cg_AclTopic", "%RETRY%cg+AclTopic", "%RETRY%cg", "AclTopic"} {
		for _, c := range []int32{code.AckMessage, code.ChangeMessageInvisibletime} {
			ext := map[string]string{"consumerGroup": "cg", "topic": topic, "queueId": "0"}
			r, err := Parse(signed(c, ext, nil, "StrictUser", "strict-secret-1"), "127.0.0.1:40000")
			if err == nil {
				err = p.Validate(r)
			}
			if err != nil {
				t.Errorf("%s topic %s: %v", code.RequestName(c), topic, err)
			}
		}
	}
}
