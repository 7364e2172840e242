package namesrv

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/wait"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

func TestNamesrvRegisterAndRoute(t *testing.T) {
	ns := startNamesrv(t, nil)
	c := newClient(t)
	addr := ns.Addr().String()

	resp := invoke(t, c, addr, routeReq("TopicA", code.CurrentVersion))
	if resp.Code != code.TopicNotExist || resp.Remark != "No topic route info in name server for the topic: TopicA"+applyTopicFAQ {
		t.Fatalf("before register: %d %q", resp.Code, resp.Remark)
	}
	for _, compressed := range []bool{false, true} {
		resp = invoke(t, c, addr, registerReq(t, "broker-a", "127.0.0.1:10911", 0, compressed, wrapper(1, "TopicA")))
		if resp.Code != code.Success || resp.ExtFields == nil || len(resp.ExtFields) != 0 || resp.Body != nil {
			t.Fatalf("register master (compressed=%v): %+v", compressed, resp)
		}
	}
	resp = invoke(t, c, addr, registerReq(t, "broker-a", "127.0.0.1:11911", 1, false, wrapper(1, "TopicA")))
	if resp.Ext("masterAddr") != "127.0.0.1:10911" || resp.Ext("haServerAddr") != "127.0.0.1:10911-ha" {
		t.Fatalf("slave register answer: %+v", resp.ExtFields)
	}
	legacy := `{"brokerDatas":[{"brokerAddrs":{0:"127.0.0.1:10911",1:"127.0.0.1:11911"},"brokerName":"broker-a","cluster":"DefaultCluster"}],"filterServerTable":{},"queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}]}`
	standard := strings.Replace(strings.Replace(legacy, "{0:", `{"0":`, 1), ",1:", `,"1":`, 1)
	resp = invoke(t, c, addr, routeReq("TopicA", 317))
	if resp.Code != code.Success || string(resp.Body) != legacy {
		t.Fatalf("legacy route: %d %s", resp.Code, resp.Body)
	}
	resp = invoke(t, c, addr, routeReq("TopicA", code.CurrentVersion))
	if string(resp.Body) != standard {
		t.Fatalf("standard route: %s", resp.Body)
	}
	req := routeReq("TopicA", 317)
	req.SetExt("acceptStandardJsonOnly", "true")
	if resp = invoke(t, c, addr, req); string(resp.Body) != standard {
		t.Fatalf("acceptStandardJsonOnly route: %s", resp.Body)
	}
	resp = invoke(t, c, addr, codec.NewRequest(code.GetBrokerClusterInfo, nil, nil))
	want := `{"brokerAddrTable":{"broker-a":{"brokerAddrs":{0:"127.0.0.1:10911",1:"127.0.0.1:11911"},"brokerName":"broker-a","cluster":"DefaultCluster"}},"clusterAddrTable":{"DefaultCluster":["broker-a"]}}`
	if string(resp.Body) != want {
		t.Fatalf("cluster info %s", resp.Body)
	}
}

func TestNamesrvRegisterRejectsBadInput(t *testing.T) {
	ns := startNamesrv(t, nil)
	c := newClient(t)
	addr := ns.Addr().String()

	bad := registerReq(t, "b", "1.1.1.1:1", 0, false, wrapper(1, "T"))
	bad.SetExt("bodyCrc32", "12345")
	if resp := invoke(t, c, addr, bad); resp.Code != code.SystemError || resp.Remark != "crc32 not match" {
		t.Fatalf("crc mismatch: %d %q", resp.Code, resp.Remark)
	}
	for _, b := range [][]byte{[]byte("{not json"), []byte(`{"topicConfigSerializeWrapper":[]}`)} {
		req := registerReq(t, "b", "1.1.1.1:1", 0, false, wrapper(1, "T"))
		req.Body = b
		req.SetExt("bodyCrc32", "0")
		if resp := invoke(t, c, addr, req); resp.Code != code.SystemError {
			t.Fatalf("bad body %q: %d", b, resp.Code)
		}
	}
	req := registerReq(t, "b", "1.1.1.1:1", 0, true, wrapper(1, "T"))
	req.Body = req.Body[:len(req.Body)/2]
	req.SetExt("bodyCrc32", "0")
	if resp := invoke(t, c, addr, req); resp.Code != code.SystemError {
		t.Fatalf("truncated compressed body: %d", resp.Code)
	}
	noName := registerReq(t, "b", "1.1.1.1:1", 0, false, wrapper(1, "T"))
	delete(noName.ExtFields, "brokerName")
	if resp := invoke(t, c, addr, noName); resp.Code != code.SystemError || !strings.Contains(resp.Remark, "brokerName") {
		t.Fatalf("missing header field: %d %q", resp.Code, resp.Remark)
	}
	badID := registerReq(t, "b", "1.1.1.1:1", 0, false, wrapper(1, "T"))
	badID.SetExt("brokerId", "zero")
	if resp := invoke(t, c, addr, badID); resp.Code != code.SystemError {
		t.Fatalf("bad brokerId: %d", resp.Code)
	}
	if tl := ns.RouteInfoManager().GetAllTopicList(); len(tl.TopicList) != 0 {
		t.Fatalf("rejected registrations changed the table: %v", tl.TopicList)
	}
	// The server still answers after all that.
	if resp := invoke(t, c, addr, registerReq(t, "b", "1.1.1.1:1", 0, false, wrapper(1, "T"))); resp.Code != code.Success {
		t.Fatalf("good register after bad ones: %d", resp.Code)
	}
	if resp := invoke(t, c, addr, codec.NewRequest(9999, nil, nil)); resp.Code != code.RequestCodeNotSupported {
		t.Fatalf("unknown code: %d", resp.Code)
	}
}

func TestNamesrvQueryDataVersionAndUnregister(t *testing.T) {
	ns := startNamesrv(t, nil)
	c := newClient(t)
	addr := ns.Addr().String()
	invoke(t, c, addr, registerReq(t, "broker-a", "a:1", 0, false, wrapper(3, "T")))
	qh := &header.QueryDataVersionRequestHeader{BrokerName: "broker-a", BrokerAddr: "a:1", ClusterName: "DefaultCluster"}
	dv := body.DataVersion{Timestamp: 1000, Counter: 3}
	resp := invoke(t, c, addr, codec.NewRequest(code.QueryDataVersion, qh.ToExtFields(), dv.Encode()))
	if resp.Ext("changed") != "false" || string(resp.Body) != `{"counter":3,"timestamp":1000}` {
		t.Fatalf("query same: %+v %s", resp.ExtFields, resp.Body)
	}
	dv.Counter = 4
	resp = invoke(t, c, addr, codec.NewRequest(code.QueryDataVersion, qh.ToExtFields(), dv.Encode()))
	if resp.Ext("changed") != "true" {
		t.Fatalf("query changed: %+v", resp.ExtFields)
	}
	resp = invoke(t, c, addr, codec.NewRequest(code.QueryDataVersion, qh.ToExtFields(), nil))
	if resp.Code != code.SystemError {
		t.Fatalf("query without body: %d", resp.Code)
	}
	uh := &header.UnRegisterBrokerRequestHeader{BrokerName: "broker-a", BrokerAddr: "a:1", ClusterName: "DefaultCluster"}
	if resp = invoke(t, c, addr, codec.NewRequest(code.UnregisterBroker, uh.ToExtFields(), nil)); resp.Code != code.Success {
		t.Fatalf("unregister: %d", resp.Code)
	}
	if resp = invoke(t, c, addr, routeReq("T", 409)); resp.Code != code.TopicNotExist {
		t.Fatalf("route after unregister: %d", resp.Code)
	}
}

func TestNamesrvKVConfigAndOrderTopicConf(t *testing.T) {
	ns := startNamesrv(t, func(c *NamesrvConfig) { c.OrderMessageEnable = true })
	c := newClient(t)
	addr := ns.Addr().String()
	put := &header.PutKVConfigRequestHeader{Namespace: NamespaceOrderTopicConfig, Key: "TopicO", Value: "broker-a:4"}
	if resp := invoke(t, c, addr, codec.NewRequest(code.PutKvConfig, put.ToExtFields(), nil)); resp.Code != code.Success {
		t.Fatalf("put: %d", resp.Code)
	}
	get := &header.GetKVConfigRequestHeader{Namespace: NamespaceOrderTopicConfig, Key: "TopicO"}
	if resp := invoke(t, c, addr, codec.NewRequest(code.GetKvConfig, get.ToExtFields(), nil)); resp.Ext("value") != "broker-a:4" {
		t.Fatalf("get: %+v", resp)
	}
	resp := invoke(t, c, addr, registerReq(t, "broker-a", "a:1", 0, false, wrapper(1, "TopicO")))
	if string(resp.Body) != `{"table":{"TopicO":"broker-a:4"}}` {
		t.Fatalf("register answer body %s", resp.Body)
	}
	resp = invoke(t, c, addr, routeReq("TopicO", 409))
	if !strings.Contains(string(resp.Body), `"orderTopicConf":"broker-a:4"`) {
		t.Fatalf("route lacks orderTopicConf: %s", resp.Body)
	}
	list := &header.GetKVListByNamespaceRequestHeader{Namespace: NamespaceOrderTopicConfig}
	if resp = invoke(t, c, addr, codec.NewRequest(code.GetKvlistByNamespace, list.ToExtFields(), nil)); string(resp.Body) != `{"table":{"TopicO":"broker-a:4"}}` {
		t.Fatalf("kv list %s", resp.Body)
	}
	data, err := os.ReadFile(ns.Config().KVConfigPath)
	if err != nil || string(data) != `{"configTable":{"ORDER_TOPIC_CONFIG":{"TopicO":"broker-a:4"}}}` {
		t.Fatalf("kv file %q %v", data, err)
	}
	del := &header.DeleteKVConfigRequestHeader{Namespace: NamespaceOrderTopicConfig, Key: "TopicO"}
	invoke(t, c, addr, codec.NewRequest(code.DeleteKvConfig, del.ToExtFields(), nil))
	resp = invoke(t, c, addr, codec.NewRequest(code.GetKvConfig, get.ToExtFields(), nil))
	if resp.Code != code.QueryNotFound || resp.Remark != "No config item, Namespace: ORDER_TOPIC_CONFIG Key: TopicO" {
		t.Fatalf("get after delete: %d %q", resp.Code, resp.Remark)
	}
	if _, err := os.Stat(ns.Config().KVConfigPath + ".bak"); err != nil {
		t.Fatalf("no .bak after second persist: %v", err)
	}
	missing := &header.GetKVListByNamespaceRequestHeader{Namespace: "none"}
	if resp = invoke(t, c, addr, codec.NewRequest(code.GetKvlistByNamespace, missing.ToExtFields(), nil)); resp.Code != code.QueryNotFound {
		t.Fatalf("missing namespace: %d", resp.Code)
	}
}

func TestNamesrvKVConfigReloaded(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/kv.json"
	if err := os.WriteFile(path, []byte(`{"configTable":{"ns":{"k":"v"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ns := startNamesrv(t, func(c *NamesrvConfig) { c.KVConfigPath = path })
	if v, ok := ns.KVConfigManager().Get("ns", "k"); !ok || v != "v" {
		t.Fatalf("kv not loaded: %q %v", v, ok)
	}
}

func TestNamesrvAdminCodes(t *testing.T) {
	ns := startNamesrv(t, nil)
	c := newClient(t)
	addr := ns.Addr().String()
	invoke(t, c, addr, registerReq(t, "broker-a", "a:1", 0, false, wrapper(1, "T1", "T2")))

	wipe := &header.WipeWritePermOfBrokerRequestHeader{BrokerName: "broker-a"}
	if resp := invoke(t, c, addr, codec.NewRequest(code.WipeWritePermOfBroker, wipe.ToExtFields(), nil)); resp.Ext("wipeTopicCount") != "2" {
		t.Fatalf("wipe: %+v", resp.ExtFields)
	}
	add := &header.AddWritePermOfBrokerRequestHeader{BrokerName: "broker-a"}
	if resp := invoke(t, c, addr, codec.NewRequest(code.AddWritePermOfBroker, add.ToExtFields(), nil)); resp.Ext("addTopicCount") != "2" {
		t.Fatalf("add: %+v", resp.ExtFields)
	}
	resp := invoke(t, c, addr, codec.NewRequest(code.GetAllTopicListFromNameserver, nil, nil))
	tl, err := body.DecodeTopicList(resp.Body)
	if err != nil || len(tl.TopicList) != 2 {
		t.Fatalf("topic list %s %v", resp.Body, err)
	}
	bc := &header.GetTopicsByClusterRequestHeader{Cluster: "DefaultCluster"}
	if resp = invoke(t, c, addr, codec.NewRequest(code.GetTopicsByCluster, bc.ToExtFields(), nil)); !strings.Contains(string(resp.Body), "T1") {
		t.Fatalf("by cluster %s", resp.Body)
	}
	if resp = invoke(t, c, addr, codec.NewRequest(code.GetSystemTopicListFromNs, nil, nil)); string(resp.Body) != `{"brokerAddr":"a:1","topicList":["DefaultCluster","broker-a"]}` &&
		string(resp.Body) != `{"brokerAddr":"a:1","topicList":["broker-a","DefaultCluster"]}` {
		t.Fatalf("system topics %s", resp.Body)
	}
	for _, cd := range []int32{code.GetUnitTopicList, code.GetHasUnitSubTopicList, code.GetHasUnitSubUnunitTopicList} {
		if resp = invoke(t, c, addr, codec.NewRequest(cd, nil, nil)); string(resp.Body) != `{"topicList":[]}` {
			t.Fatalf("code %d: %s", cd, resp.Body)
		}
	}
	del := &header.DeleteTopicFromNamesrvRequestHeader{Topic: "T1"}
	invoke(t, c, addr, codec.NewRequest(code.DeleteTopicInNamesrv, del.ToExtFields(), nil))
	if resp = invoke(t, c, addr, routeReq("T1", 409)); resp.Code != code.TopicNotExist {
		t.Fatalf("deleted topic still routed")
	}
	rt := &header.RegisterTopicRequestHeader{Topic: "T9"}
	rd := &body.TopicRouteData{QueueDatas: []body.QueueData{{BrokerName: "broker-a", ReadQueueNums: 1, WriteQueueNums: 1, Perm: 6}}}
	invoke(t, c, addr, codec.NewRequest(code.RegisterTopicInNamesrv, rt.ToExtFields(), rd.Encode(true)))
	if resp = invoke(t, c, addr, routeReq("T9", 409)); resp.Code != code.Success {
		t.Fatalf("REGISTER_TOPIC_IN_NAMESRV had no effect: %d", resp.Code)
	}
	mg := &header.GetBrokerMemberGroupRequestHeader{ClusterName: "DefaultCluster", BrokerName: "broker-a"}
	resp = invoke(t, c, addr, codec.NewRequest(code.GetBrokerMemberGroup, mg.ToExtFields(), nil))
	if string(resp.Body) != `{"brokerMemberGroup":{"brokerAddrs":{0:"a:1"},"brokerName":"broker-a","cluster":"DefaultCluster"}}` {
		t.Fatalf("member group %s", resp.Body)
	}
}

func TestNamesrvConfigUpdate(t *testing.T) {
	ns := startNamesrv(t, nil)
	c := newClient(t)
	addr := ns.Addr().String()
	resp := invoke(t, c, addr, codec.NewRequest(code.GetNamesrvConfig, nil, nil))
	if !strings.Contains(string(resp.Body), "orderMessageEnable=false\n") || !strings.Contains(string(resp.Body), "listenPort=9876\n") {
		t.Fatalf("config body %s", resp.Body)
	}
	resp = invoke(t, c, addr, codec.NewRequest(code.UpdateNamesrvConfig, nil, []byte("kvConfigPath=/tmp/x\n")))
	if resp.Code != code.NoPermission || resp.Remark != "Can not update config in black list." {
		t.Fatalf("black list: %d %q", resp.Code, resp.Remark)
	}
	resp = invoke(t, c, addr, codec.NewRequest(code.UpdateNamesrvConfig, nil, []byte("orderMessageEnable=true\n")))
	if resp.Code != code.Success || !ns.Config().OrderMessageEnable {
		t.Fatalf("update: %d %v", resp.Code, ns.Config().OrderMessageEnable)
	}
	data, err := os.ReadFile(ns.Config().ConfigStorePath)
	if err != nil || !strings.Contains(string(data), "orderMessageEnable=true\n") {
		t.Fatalf("config not persisted: %q %v", data, err)
	}
}

func TestNamesrvChannelCloseRemovesBroker(t *testing.T) {
	ns := startNamesrv(t, nil)
	c := newClient(t)
	addr := ns.Addr().String()
	invoke(t, c, addr, registerReq(t, "broker-a", "a:1", 0, false, wrapper(1, "T")))
	c.CloseChannel(addr)
	deadline := time.Now().Add(wait.Scale(5 * time.Second))
	for ns.RouteInfoManager().PickupTopicRouteData("T") != nil {
		if time.Now().After(deadline) {
			t.Fatal("broker still routed after its connection closed")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestNamesrvSilentBrokerExpires(t *testing.T) {
	ns := startNamesrv(t, func(c *NamesrvConfig) {
		c.ScanNotActiveBrokerInterval = 20
		c.BrokerChannelExpiredTime = 300
	})
	c := newClient(t)
	addr := ns.Addr().String()
	invoke(t, c, addr, registerReq(t, "broker-a", "a:1", 0, false, wrapper(1, "T")))
	if resp := invoke(t, c, addr, routeReq("T", 409)); resp.Code != code.Success {
		t.Fatalf("route right after register: %d", resp.Code)
	}
	deadline := time.Now().Add(wait.Scale(5 * time.Second))
	for ns.RouteInfoManager().PickupTopicRouteData("T") != nil {
		if time.Now().After(deadline) {
			t.Fatal("silent broker never expired")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestNamesrvConfigValidate(t *testing.T) {
	cfg := NewNamesrvConfig()
	cfg.ScanNotActiveBrokerInterval = 0
	cfg.BrokerChannelExpiredTime = -1
	cfg.KVConfigPath = ""
	_, err := New(cfg, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "scanNotActiveBrokerInterval") || !strings.Contains(err.Error(), "brokerChannelExpiredTime") || !strings.Contains(err.Error(), "kvConfigPath") {
		t.Fatalf("validate: %v", err)
	}
	if p := NewNettyServerConfig().ListenPort; p != 9876 {
		t.Fatalf("listenPort default %d", p)
	}
}

func TestNamesrvClusterTestFallsBackToProductEnv(t *testing.T) {
	product := startNamesrv(t, nil)
	c := newClient(t)
	invoke(t, c, product.Addr().String(), registerReq(t, "broker-p", "p:1", 0, false, wrapper(1, "ProdTopic")))

	ns := startNamesrv(t, func(cfg *NamesrvConfig) {
		cfg.ClusterTest = true
		cfg.ProductEnvNamesrvAddr = product.Addr().String()
	})
	addr := ns.Addr().String()
	resp := invoke(t, c, addr, routeReq("ProdTopic", code.CurrentVersion))
	want := `{"brokerDatas":[{"brokerAddrs":{0:"p:1"},"brokerName":"broker-p","cluster":"DefaultCluster"}],"filterServerTable":{},"queueDatas":[{"brokerName":"broker-p","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}]}`
	if resp.Code != code.Success || string(resp.Body) != want {
		t.Fatalf("fallback route: %d %s", resp.Code, resp.Body)
	}
	// Local topics win and carry the KV order conf even without orderMessageEnable.
	ns.KVConfigManager().Put(NamespaceOrderTopicConfig, "LocalTopic", "broker-l:4")
	invoke(t, c, addr, registerReq(t, "broker-l", "l:1", 0, false, wrapper(1, "LocalTopic")))
	resp = invoke(t, c, addr, routeReq("LocalTopic", code.CurrentVersion))
	if !strings.Contains(string(resp.Body), `"orderTopicConf":"broker-l:4"`) || !strings.Contains(string(resp.Body), `{0:"l:1"}`) {
		t.Fatalf("local route in cluster test mode: %s", resp.Body)
	}
	if resp = invoke(t, c, addr, routeReq("Nowhere", code.CurrentVersion)); resp.Code != code.TopicNotExist {
		t.Fatalf("unknown everywhere: %d", resp.Code)
	}
}
