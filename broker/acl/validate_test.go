package acl

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// Remarks of Apache 4.9.8's refusals, byte for byte from the golden
// recordings (../shared/golden/clients/README.md, scenario 9).
const (
	remarkWrongSecret = "org.apache.rocketmq.acl.common.AclException: Check signature failed for accessKey=RocketMQUser, org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:684)"
	remarkUnknownKey  = "org.apache.rocketmq.acl.common.AclException: No acl config for RocketMQNobody, org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:668)"
	remarkNoKey       = "org.apache.rocketmq.acl.common.AclException: No accessKey is configured, org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:664)"
	remarkDenyTopic   = "org.apache.rocketmq.acl.common.AclException: No default permission for topic:AclDenyTopic, org.apache.rocketmq.acl.plain.PlainPermissionManager.checkPerm(PlainPermissionManager.java:611)"
	remarkNoSubGroup  = "org.apache.rocketmq.acl.common.AclException: No default permission for group:acl_pubonly_group, org.apache.rocketmq.acl.plain.PlainPermissionManager.checkPerm(PlainPermissionManager.java:611)"
	remarkNeedAdmin   = "org.apache.rocketmq.acl.common.AclException: Need admin permission for request code=17, but accessKey=RocketMQUser is not, org.apache.rocketmq.acl.plain.PlainPermissionManager.checkPerm(PlainPermissionManager.java:581)"
)

// newTestPlain starts a Plain on a fresh home holding yml as the default
// file (the golden plain_acl.yml when yml is empty).
func newTestPlain(t testing.TB, yml string) (*Plain, string) {
	t.Helper()
	home := t.TempDir()
	if yml == "" {
		b, err := os.ReadFile(filepath.Join("testdata", "plain_acl.yml"))
		if err != nil {
			t.Fatal(err)
		}
		yml = string(b)
	}
	if err := os.MkdirAll(filepath.Join(home, "conf"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "conf", "plain_acl.yml"), []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := New(Config{Home: home, Logger: zaptest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Shutdown(context.Background()) })
	return p, home
}

// signed builds a request signed with ak/sk (no signature when ak is "").
func signed(c int32, ext map[string]string, data []byte, ak, sk string) *codec.RemotingCommand {
	if ext == nil {
		ext = map[string]string{}
	}
	if ak != "" {
		SignRequest(ext, data, ak, sk)
	}
	return codec.NewRequest(c, ext, data)
}

func heartbeat(group, topic string) []byte {
	hb := &body.HeartbeatData{ClientID: "192.0.2.2@1", ConsumerDataSet: []body.ConsumerData{{
		GroupName: group, ConsumeType: "CONSUME_PASSIVELY", MessageModel: "CLUSTERING", ConsumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
		SubscriptionDataSet: []body.SubscriptionData{{Topic: topic, SubString: "*"}, {Topic: "%RETRY%" + group, SubString: "*"}},
	}}}
	return hb.Encode()
}

func TestACLValidateGoldenAccounts(t *testing.T) {
	p, _ := newTestPlain(t, "")
	const user, userSK, admin, adminSK = "RocketMQUser", "user-secret-1234", "RocketMQAdmin", "admin-secret-9876"
	send := func(topic string) map[string]string {
		return map[string]string{"a": "acl_producer_group", "b": topic, "c": "TBW102", "d": "4", "e": "0"}
	}
	pull := func(topic, group string) map[string]string {
		return map[string]string{"consumerGroup": group, "topic": topic, "queueId": "0", "queueOffset": "0"}
	}
	cases := []struct {
		name   string
		req    *codec.RemotingCommand
		addr   string
		remark string // "" = allowed
	}{
		{"permitted send", signed(code.SendMessageV2, send("AclTopic"), []byte("hello"), user, userSK), "", ""},
		{"wrong secret", signed(code.SendMessageV2, send("AclTopic"), []byte("hello"), user, "wrong-secret-0000"), "", remarkWrongSecret},
		{"unknown key", signed(code.SendMessageV2, send("AclTopic"), nil, "RocketMQNobody", "nobody-secret-00"), "", remarkUnknownKey},
		{"no credentials", signed(code.SendMessageV2, send("AclTopic"), nil, "", ""), "", remarkNoKey},
		{"denied topic", signed(code.SendMessageV2, send("AclDenyTopic"), nil, user, userSK), "", remarkDenyTopic},
		{"topic by default DENY", signed(code.SendMessageV2, send("OtherTopic"), nil, user, userSK), "",
			"org.apache.rocketmq.acl.common.AclException: No default permission for topic:OtherTopic, org.apache.rocketmq.acl.plain.PlainPermissionManager.checkPerm(PlainPermissionManager.java:606)"},
		{"heartbeat group without SUB", signed(code.HeartBeat, nil, heartbeat("acl_pubonly_group", "AclTopic"), user, userSK), "", remarkNoSubGroup},
		{"heartbeat permitted", signed(code.HeartBeat, nil, heartbeat("acl_consumer_group", "AclTopic"), user, userSK), "", ""},
		{"pull permitted", signed(code.PullMessage, pull("AclTopic", "acl_consumer_group"), nil, user, userSK), "", ""},
		{"pull group by default SUB", signed(code.PullMessage, pull("AclTopic", "some_group"), nil, user, userSK), "", ""},
		{"pull denied group", signed(code.PullMessage, pull("AclTopic", "acl_deny_group"), nil, user, userSK), "",
			"org.apache.rocketmq.acl.common.AclException: No default permission for group:acl_deny_group, org.apache.rocketmq.acl.plain.PlainPermissionManager.checkPerm(PlainPermissionManager.java:611)"},
		{"consumer list without SUB", signed(code.GetConsumerListByGroup, map[string]string{"consumerGroup": "acl_pubonly_group"}, nil, user, userSK), "", remarkNoSubGroup},
		{"producer unregister names no group", signed(code.UnregisterClient, map[string]string{"clientID": "x", "producerGroup": "acl_producer_group"}, nil, user, userSK), "", ""},
		{"admin code by user", signed(code.UpdateAndCreateTopic, map[string]string{"topic": "AclUserTopic"}, nil, user, userSK), "", remarkNeedAdmin},
		{"admin code by admin", signed(code.UpdateAndCreateTopic, map[string]string{"topic": "AclUserTopic"}, nil, admin, adminSK), "", ""},
		{"acl codes need no admin", signed(code.GetBrokerClusterAclInfo, nil, nil, user, userSK), "", ""},
		{"global white address needs no signature", signed(code.SendMessageV2, send("AclDenyTopic"), nil, "", ""), "10.10.103.7:5555", ""},
		{"trace topic may publish", signed(code.SendMessageV2, send("RMQ_SYS_TRACE_TOPIC"), nil, user, userSK), "", ""},
		{"retry topic send needs group SUB", signed(code.SendMessageV2, map[string]string{"a": "acl_pubonly_group", "b": "%RETRY%acl_pubonly_group"}, nil, user, userSK), "", remarkNoSubGroup},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			addr := c.addr
			if addr == "" {
				addr = "127.0.0.1:40000"
			}
			r, err := Parse(c.req, addr)
			if err == nil {
				err = p.Validate(r)
			}
			got := ""
			if err != nil {
				ae, ok := err.(*Error) //nolint:errorlint // acl returns *Error unwrapped
				if !ok {
					t.Fatalf("error %T %v", err, err)
				}
				got = ae.Remark()
			}
			if got != c.remark {
				t.Errorf("remark\n got %q\nwant %q", got, c.remark)
			}
		})
	}
}

func TestACLSignatureGoldenExample(t *testing.T) {
	// mqadmin's GET_BROKER_CLUSTER_INFO: only AccessKey, no body.
	if got := Sign(Content(map[string]string{"AccessKey": "RocketMQAdmin"}, nil), "admin-secret-9876"); got != "MS0nVUNEBA/20263WUXdJlBfCnE=" {
		t.Fatalf("signature %q", got)
	}
	ext := map[string]string{"b": "2", "a": "1", "Signature": "x", "_UNIQUE_KEY_QUERY": "q", "B": "3"}
	if got := string(Content(ext, []byte("body"))); got != "312body" {
		t.Fatalf("content %q, want values in Java key order without Signature/_UNIQUE_KEY_QUERY", got)
	}
}

func TestACLWhiteAddressPerAccount(t *testing.T) {
	p, _ := newTestPlain(t, `accounts:
  - accessKey: WhiteUser1
    secretKey: white-secret-1
    whiteRemoteAddress: 192.168.1.*
    defaultTopicPerm: PUB
`)
	req := signed(code.SendMessageV2, map[string]string{"b": "T", "AccessKey": "WhiteUser1"}, nil, "", "")
	r, _ := Parse(req, "192.168.1.9:1234")
	if err := p.Validate(r); err != nil {
		t.Fatalf("white-listed account address refused: %v", err)
	}
	r, _ = Parse(req, "192.168.2.9:1234")
	if err := p.Validate(r); err == nil {
		t.Fatal("unsigned request from another address accepted")
	}
}

func TestACLLoadRefusesUnenforceable(t *testing.T) {
	for name, yml := range map[string]string{
		"short secret":      "accounts:\n  - accessKey: Someone1\n    secretKey: short\n",
		"bad white":         "globalWhiteRemoteAddresses:\n  - 10.10.*\n",
		"bad perm format":   "accounts:\n  - accessKey: Someone1\n    secretKey: long-secret\n    topicPerms:\n      - TopicWithoutPerm\n",
		"accounts not list": "accounts: yes\n",
	} {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			_ = os.MkdirAll(filepath.Join(home, "conf"), 0o755)
			_ = os.WriteFile(filepath.Join(home, "conf", "plain_acl.yml"), []byte(yml), 0o644)
			if _, err := New(Config{Home: home}); err == nil {
				t.Fatal("loaded")
			}
		})
	}
	if _, err := New(Config{}); err == nil {
		t.Fatal("no home accepted")
	}
}
