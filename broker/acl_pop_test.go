package broker_test

import (
	"strconv"
	"testing"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/acl"
	"github.com/rocketmq-go/rmq/broker/pop"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// popACLYml: an admin that may do anything (it sends the messages), a
// consumer with SUB on the topic and its group, and two consumers each
// denied one of them. Defaults deny, so only the listed grants count.
const popACLYml = `accounts:
  - accessKey: PopAdmin
    secretKey: pop-admin-secret
    admin: true
  - accessKey: PopSubUser
    secretKey: pop-sub-secret
    defaultTopicPerm: DENY
    defaultGroupPerm: DENY
    topicPerms:
      - PopAclT=SUB
    groupPerms:
      - pag=SUB
  - accessKey: PopNoTopic
    secretKey: pop-notopic-secret
    defaultTopicPerm: DENY
    defaultGroupPerm: DENY
    topicPerms:
      - PopAclT=DENY
    groupPerms:
      - pag=SUB
  - accessKey: PopNoGroup
    secretKey: pop-nogroup-secret
    defaultTopicPerm: DENY
    defaultGroupPerm: DENY
    topicPerms:
      - PopAclT=SUB
    groupPerms:
      - pag=DENY
`

const (
	remarkPopNoTopic = "org.apache.rocketmq.acl.common.AclException: No default permission for topic:PopAclT, " +
		"org.apache.rocketmq.acl.plain.PlainPermissionManager.checkPerm(PlainPermissionManager.java:611)"
	remarkPopNoGroup = "org.apache.rocketmq.acl.common.AclException: No default permission for group:pag, " +
		"org.apache.rocketmq.acl.plain.PlainPermissionManager.checkPerm(PlainPermissionManager.java:611)"
)

// signedBy signs req in place as a client with these credentials does.
func signedBy(req *codec.RemotingCommand, ak, sk string) *codec.RemotingCommand {
	if req.ExtFields == nil {
		req.ExtFields = map[string]string{}
	}
	acl.SignRequest(req.ExtFields, req.Body, ak, sk)
	return req
}

func popAckReq(group, topic string, queueID int32, offset int64, handle string) *codec.RemotingCommand {
	h := &header.AckMessageRequestHeader{ConsumerGroup: group, Topic: topic, QueueID: queueID, ExtraInfo: handle, Offset: offset}
	return codec.NewRequest(code.AckMessage, h.ToExtFields(), nil)
}

func popChangeReq(group, topic string, queueID int32, offset int64, handle string) *codec.RemotingCommand {
	h := &header.ChangeInvisibleTimeRequestHeader{ConsumerGroup: group, Topic: topic, QueueID: queueID,
		ExtraInfo: handle, Offset: offset, InvisibleTime: 60_000}
	return codec.NewRequest(code.ChangeMessageInvisibletime, h.ToExtFields(), nil)
}

func popBatchAckReq(group, topic string, rh header.PopMessageResponseHeader, bits string) *codec.RemotingCommand {
	b := `{"acks":[{"b":"` + bits + `","c":"` + group + `","it":` + strconv.FormatInt(rh.InvisibleTime, 10) +
		`,"pt":` + strconv.FormatInt(rh.PopTime, 10) + `,"q":0,"r":"0","rq":` + strconv.Itoa(int(rh.ReviveQid)) +
		`,"so":0,"t":"` + topic + `"}],"brokerName":"broker-a"}`
	return codec.NewRequest(code.BatchAckMessage, nil, []byte(b))
}

// TestBrokerACLPopCodesNeedSub: with aclEnable=true the POP consumer codes
// need SUB on the topic and on the group, as 5.x's ACL 2.0 asks of them: an
// account denied either is refused with the permission remark (and takes
// nothing), an account with both pops, acks, changes the invisible time
// and batch-acks.
func TestBrokerACLPopCodesNeedSub(t *testing.T) {
	t.Parallel()
	home := aclHomeWith(t, popACLYml)
	e := newConsumeEnv(t, func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) {
		c.ACLEnable, c.RocketmqHome = true, home
	})
	for i := range 3 {
		h := &header.SendMessageRequestHeader{ProducerGroup: "pg", Topic: "PopAclT", DefaultTopic: "TBW102",
			DefaultTopicQueueNums: 4, QueueID: 0}
		req := codec.NewRequest(code.SendMessage, h.ToExtFields(), []byte("m"+strconv.Itoa(i)))
		e.expect(e.call(signedBy(req, "PopAdmin", "pop-admin-secret")), code.Success, "")
	}
	e.waitDispatched("PopAclT", 0, 3)

	var zero header.PopMessageResponseHeader
	for _, who := range []struct{ ak, sk, remark string }{
		{"PopNoTopic", "pop-notopic-secret", remarkPopNoTopic},
		{"PopNoGroup", "pop-nogroup-secret", remarkPopNoGroup},
	} {
		for _, req := range []*codec.RemotingCommand{
			popReq("pag", "PopAclT", 0, 32, 60_000, 0),
			popAckReq("pag", "PopAclT", 0, 0, "0 1 60000 0 0 broker-a 0 0"),
			popChangeReq("pag", "PopAclT", 0, 0, "0 1 60000 0 0 broker-a 0 0"),
			popBatchAckReq("pag", "PopAclT", zero, "AQ=="),
		} {
			resp := e.call(signedBy(req, who.ak, who.sk))
			if resp.Code != code.SystemError || resp.Remark != who.remark {
				t.Errorf("%s %s: got %s %q, want SYSTEM_ERROR %q", who.ak, code.RequestName(req.Code),
					code.ResponseName(resp.Code), resp.Remark, who.remark)
			}
		}
	}

	resp := e.call(signedBy(popReq("pag", "PopAclT", 0, 32, 60_000, 0), "PopSubUser", "pop-sub-secret"))
	e.expect(resp, code.Success, "FOUND")
	var rh header.PopMessageResponseHeader
	if err := rh.FromExtFields(resp.ExtFields); err != nil {
		t.Fatal(err)
	}
	got := decodeBody(t, resp.Body)
	if bodies(got) != "m0,m1,m2" {
		t.Fatalf("permitted pop got %q (a refused pop took messages?)", bodies(got))
	}
	handle := func(i int) string {
		return pop.BuildExtraInfo(0, rh.PopTime, rh.InvisibleTime, rh.ReviveQid, "PopAclT", "broker-a", 0, got[i].QueueOffset)
	}
	e.expect(e.call(signedBy(popAckReq("pag", "PopAclT", 0, got[0].QueueOffset, handle(0)), "PopSubUser", "pop-sub-secret")),
		code.Success, "")
	e.expect(e.call(signedBy(popChangeReq("pag", "PopAclT", 0, got[1].QueueOffset, handle(1)), "PopSubUser", "pop-sub-secret")),
		code.Success, "")
	// bit 2 over startOffset 0: BitSet.toByteArray {0x04}.
	e.expect(e.call(signedBy(popBatchAckReq("pag", "PopAclT", rh, "BA=="), "PopSubUser", "pop-sub-secret")),
		code.Success, "")
}
