package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/apache/rocketmq-client-go/v2/rlog"
	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/acl"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// The accounts of the golden ACL sessions (scenario 9).
const aclYml = `globalWhiteRemoteAddresses:
  - 10.10.103.*
accounts:
  - accessKey: RocketMQAdmin
    secretKey: admin-secret-9876
    admin: true
  - accessKey: RocketMQUser
    secretKey: user-secret-1234
    admin: false
    defaultTopicPerm: DENY
    defaultGroupPerm: SUB
    topicPerms:
      - AclTopic=PUB|SUB
      - AclDenyTopic=DENY
    groupPerms:
      - acl_consumer_group=SUB
      - acl_pubonly_group=PUB
`

var (
	aclUser  = primitive.Credentials{AccessKey: "RocketMQUser", SecretKey: "user-secret-1234"}
	aclAdmin = primitive.Credentials{AccessKey: "RocketMQAdmin", SecretKey: "admin-secret-9876"}
)

type aclEnv struct {
	t      *testing.T
	nsAddr string
	b      *broker.Broker
	file   string // the default plain_acl.yml
}

// newACLEnv starts a name server and an aclEnable=true broker whose home
// holds yml, with AclTopic and AclDenyTopic created.
func newACLEnv(t *testing.T, yml string) *aclEnv {
	t.Helper()
	rlog.SetLogLevel("error")
	home := t.TempDir()
	file := filepath.Join(home, "conf", "plain_acl.yml")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	ns := testutil.StartNamesrv(t)
	b := testutil.StartBroker(t, ns.Addr().String(), func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) {
		c.ACLEnable, c.RocketmqHome = true, home
	})
	for _, topic := range []string{"AclTopic", "AclDenyTopic"} {
		tc := body.NewTopicConfig(topic)
		tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm = 4, 4, 6
		b.Topics().UpdateTopicConfig(tc)
	}
	b.RegisterBrokerAll(false)
	return &aclEnv{t: t, nsAddr: ns.Addr().String(), b: b, file: file}
}

func (e *aclEnv) producer(cred *primitive.Credentials) interface {
	SendSync(context.Context, ...*primitive.Message) (*primitive.SendResult, error)
} {
	opts := []producer.Option{
		producer.WithNsResolver(primitive.NewPassthroughResolver([]string{e.nsAddr})),
		producer.WithGroupName(uniqueName("acl_pg")), producer.WithInstanceName(uniqueName("aclp")),
		producer.WithRetry(0),
	}
	if cred != nil {
		opts = append(opts, producer.WithCredentials(*cred))
	}
	p, err := producer.NewDefaultProducer(opts...)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := p.Start(); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = p.Shutdown() })
	return p
}

func (e *aclEnv) send(p interface {
	SendSync(context.Context, ...*primitive.Message) (*primitive.SendResult, error)
}, topic, text string) error {
	ctx, cancel := context.WithTimeout(e.t.Context(), 10*time.Second)
	defer cancel()
	r, err := p.SendSync(ctx, primitive.NewMessage(topic, []byte(text)))
	if err == nil && r.Status != primitive.SendOK {
		e.t.Fatalf("send status %v", r.Status)
	}
	return err
}

// raw sends a request signed with cred (unsigned when nil) through our own
// remoting client and returns the broker's answer.
func (e *aclEnv) raw(c int32, ext map[string]string, data []byte, cred *primitive.Credentials) *codec.RemotingCommand {
	e.t.Helper()
	cl := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(e.t))
	defer func() { _ = cl.Shutdown(context.Background()) }()
	if ext == nil {
		ext = map[string]string{}
	}
	if cred != nil {
		acl.SignRequest(ext, data, cred.AccessKey, cred.SecretKey)
	}
	ctx, cancel := context.WithTimeout(e.t.Context(), 10*time.Second)
	defer cancel()
	resp, err := cl.InvokeSync(ctx, e.b.BrokerAddr(), codec.NewRequest(c, ext, data))
	if err != nil {
		e.t.Fatal(err)
	}
	return resp
}

func wantRefusal(t *testing.T, err error, remark string) {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted, want refusal %q", remark)
	}
	if !strings.Contains(err.Error(), remark) {
		t.Fatalf("error %q, want remark %q", err, remark)
	}
}

func TestIntegrationACLPermittedProduceAndConsume(t *testing.T) {
	t.Parallel()
	e := newACLEnv(t, aclYml)
	p := e.producer(&aclUser)
	for _, m := range []string{"acl-0", "acl-1", "acl-2"} {
		if err := e.send(p, "AclTopic", m); err != nil {
			t.Fatalf("permitted send refused: %v", err)
		}
	}
	r := newReceived()
	c, err := consumer.NewPushConsumer(
		consumer.WithNsResolver(primitive.NewPassthroughResolver([]string{e.nsAddr})),
		consumer.WithGroupName("acl_consumer_group"), consumer.WithInstance(uniqueName("aclc")),
		consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset), consumer.WithCredentials(aclUser))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Subscribe("AclTopic", consumer.MessageSelector{Type: consumer.TAG, Expression: "*"},
		func(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
			r.add(msgs...)
			return consumer.ConsumeSuccess, nil
		}); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	t.Cleanup(func() { _ = testutil.ShutdownSettled(started, c.Shutdown) })
	r.waitAll(t, "acl", 3, 30*time.Second)
}

const (
	remarkCheckSig = "org.apache.rocketmq.acl.common.AclException: Check signature failed for accessKey=RocketMQUser, org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:684)"
	remarkNoKey    = "org.apache.rocketmq.acl.common.AclException: No accessKey is configured, org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:664)"
	remarkDenied   = "org.apache.rocketmq.acl.common.AclException: No default permission for topic:AclDenyTopic, org.apache.rocketmq.acl.plain.PlainPermissionManager.checkPerm(PlainPermissionManager.java:611)"
	remarkNoSub    = "org.apache.rocketmq.acl.common.AclException: No default permission for group:acl_pubonly_group, org.apache.rocketmq.acl.plain.PlainPermissionManager.checkPerm(PlainPermissionManager.java:611)"
	remarkNotAdmin = "org.apache.rocketmq.acl.common.AclException: Need admin permission for request code=17, but accessKey=RocketMQUser is not, org.apache.rocketmq.acl.plain.PlainPermissionManager.checkPerm(PlainPermissionManager.java:581)"
)

func TestIntegrationACLRefusals(t *testing.T) {
	t.Parallel()
	e := newACLEnv(t, aclYml)
	wrong := primitive.Credentials{AccessKey: "RocketMQUser", SecretKey: "wrong-secret-0000"}
	wantRefusal(t, e.send(e.producer(&wrong), "AclTopic", "x"), remarkCheckSig)
	wantRefusal(t, e.send(e.producer(nil), "AclTopic", "x"), remarkNoKey)
	wantRefusal(t, e.send(e.producer(&aclUser), "AclDenyTopic", "x"), remarkDenied)

	hb := &body.HeartbeatData{ClientID: "127.0.0.1@acl", ConsumerDataSet: []body.ConsumerData{{
		GroupName: "acl_pubonly_group", ConsumeType: "CONSUME_PASSIVELY", MessageModel: "CLUSTERING",
		ConsumeFromWhere: "CONSUME_FROM_FIRST_OFFSET", SubscriptionDataSet: []body.SubscriptionData{{Topic: "AclTopic", SubString: "*"}},
	}}}
	resp := e.raw(code.HeartBeat, nil, hb.Encode(), &aclUser)
	if resp.Code != code.SystemError || resp.Remark != remarkNoSub {
		t.Errorf("heartbeat of a group without SUB: %d %q", resp.Code, resp.Remark)
	}
	if cs := e.b.Consumers().GetConsumerGroupInfo("acl_pubonly_group"); cs != nil {
		t.Error("refused heartbeat registered its group")
	}
	resp = e.raw(code.UpdateAndCreateTopic, map[string]string{"topic": "AclUserTopic", "defaultTopic": "TBW102",
		"readQueueNums": "4", "writeQueueNums": "4", "perm": "6", "topicFilterType": "SINGLE_TAG"}, nil, &aclUser)
	if resp.Code != code.SystemError || resp.Remark != remarkNotAdmin {
		t.Errorf("updateTopic by a normal account: %d %q", resp.Code, resp.Remark)
	}
	if e.b.Topics().SelectTopicConfig("AclUserTopic") != nil {
		t.Error("refused updateTopic created the topic")
	}
}

// A white-listed client needs no signature; removing the white address
// from the yml refuses its next request, without a restart.
func TestIntegrationACLWhiteAddressAndHotReload(t *testing.T) {
	t.Parallel()
	e := newACLEnv(t, strings.Replace(aclYml, "  - 10.10.103.*", "  - 10.10.103.*\n  - 127.0.0.1", 1))
	p := e.producer(nil)
	if err := e.send(p, "AclDenyTopic", "white"); err != nil {
		t.Fatalf("white-listed unsigned send refused: %v", err)
	}
	if err := os.WriteFile(e.file, []byte(aclYml), 0o644); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 10*time.Second, func() error {
		err := e.send(p, "AclTopic", "after-edit")
		if err == nil || !strings.Contains(err.Error(), remarkNoKey) {
			return fmt.Errorf("send after removing the white address: %v", err)
		}
		return nil
	})
}

// The admin codes rewrite the yml and take effect: a created account can
// send, a deleted one is refused.
func TestIntegrationACLAdminCodesChangeTheFile(t *testing.T) {
	t.Parallel()
	e := newACLEnv(t, aclYml)
	resp := e.raw(code.UpdateAndCreateAclConfig, map[string]string{"accessKey": "IntegNewUser", "secretKey": "integ-secret-42",
		"defaultTopicPerm": "DENY", "defaultGroupPerm": "SUB", "topicPerms": "AclTopic=PUB", "admin": "false"}, nil, &aclAdmin)
	if resp.Code != code.Success {
		t.Fatalf("UPDATE_AND_CREATE_ACL_CONFIG: %d %q", resp.Code, resp.Remark)
	}
	data, _ := os.ReadFile(e.file)
	if !strings.Contains(string(data), "- accessKey: IntegNewUser\n  secretKey: integ-secret-42\n  admin: false\n  defaultTopicPerm: DENY\n  defaultGroupPerm: SUB\n  topicPerms:\n  - AclTopic=PUB\n") ||
		!strings.Contains(string(data), "dataVersion:\n- counter: 1\n") {
		t.Fatalf("file after UPDATE_AND_CREATE_ACL_CONFIG:\n%s", data)
	}
	newUser := primitive.Credentials{AccessKey: "IntegNewUser", SecretKey: "integ-secret-42"}
	if err := e.send(e.producer(&newUser), "AclTopic", "new-user"); err != nil {
		t.Fatalf("created account refused: %v", err)
	}
	resp = e.raw(code.UpdateGlobalWhiteAddrsConfig, map[string]string{"globalWhiteAddrs": "10.1.1.1,10.1.1.2"}, nil, &aclUser)
	if resp.Code != code.Success {
		t.Fatalf("UPDATE_GLOBAL_WHITE_ADDRS_CONFIG: %d %q", resp.Code, resp.Remark)
	}
	resp = e.raw(code.DeleteAclConfig, map[string]string{"accessKey": "IntegNewUser"}, nil, &aclAdmin)
	if resp.Code != code.Success {
		t.Fatalf("DELETE_ACL_CONFIG: %d %q", resp.Code, resp.Remark)
	}
	data, _ = os.ReadFile(e.file)
	if strings.Contains(string(data), "IntegNewUser") || !strings.Contains(string(data), "globalWhiteRemoteAddresses:\n- 10.1.1.1\n- 10.1.1.2\n") ||
		!strings.Contains(string(data), "- counter: 3\n") {
		t.Fatalf("file after delete:\n%s", data)
	}
	wantRefusal(t, e.send(e.producer(&newUser), "AclTopic", "deleted"), "No acl config for IntegNewUser")
	resp = e.raw(code.DeleteAclConfig, map[string]string{"accessKey": "IntegNewUser"}, nil, &aclAdmin)
	if resp.Code != code.DeleteAclConfigFailed ||
		resp.Remark != "The accesskey[IntegNewUser] corresponding to accessConfig has been deleted failed." {
		t.Errorf("second DELETE_ACL_CONFIG: %d %q", resp.Code, resp.Remark)
	}
	resp = e.raw(code.GetBrokerClusterAclInfo, nil, nil, &aclUser)
	if resp.Code != code.Success || !strings.Contains(resp.ExtFields["allAclFileVersion"], `{"counter":3,`) ||
		resp.ExtFields["brokerAddr"] != e.b.BrokerAddr() || resp.ExtFields["clusterName"] != "DefaultCluster" {
		t.Errorf("GET_BROKER_CLUSTER_ACL_INFO: %d %v", resp.Code, resp.ExtFields)
	}
}
