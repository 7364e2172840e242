package namesrv

import (
	"slices"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/remoting/body"
)

type fakeChannel struct{ closed bool }

func (f *fakeChannel) Close() error { f.closed = true; return nil }

func wrapper(counter int64, topics ...string) *body.TopicConfigSerializeWrapper {
	w := &body.TopicConfigSerializeWrapper{DataVersion: body.DataVersion{Timestamp: 1000, Counter: counter}, TopicConfigTable: map[string]body.TopicConfig{}}
	for _, t := range topics {
		tc := body.NewTopicConfig(t)
		tc.ReadQueueNums, tc.WriteQueueNums = 4, 4
		w.TopicConfigTable[t] = tc
	}
	return w
}

func reg(r *RouteInfoManager, name, addr string, id int64, w *body.TopicConfigSerializeWrapper, ch BrokerChannel, now int64) body.RegisterBrokerResult {
	return r.RegisterBroker(RegisterBrokerArgs{
		ClusterName: "DefaultCluster", BrokerAddr: addr, BrokerName: name, BrokerID: id,
		HAServerAddr: addr + "-ha", Wrapper: w, FilterServerList: []string{}, Channel: ch, NowMillis: now,
	})
}

func TestRouteInfoRegisterAndPickup(t *testing.T) {
	r := NewRouteInfoManager(zaptest.NewLogger(t))
	res := reg(r, "broker-a", "10.0.0.1:10911", 0, wrapper(1, "TopicA", "TopicB"), nil, 1)
	if res.MasterAddr != "" || res.HaServerAddr != "" {
		t.Fatalf("master got master info: %+v", res)
	}
	rd := r.PickupTopicRouteData("TopicA")
	if rd == nil || len(rd.QueueDatas) != 1 || rd.QueueDatas[0].ReadQueueNums != 4 || rd.BrokerDatas[0].BrokerAddrs[0] != "10.0.0.1:10911" {
		t.Fatalf("route = %+v", rd)
	}
	want := `{"brokerDatas":[{"brokerAddrs":{0:"10.0.0.1:10911"},"brokerName":"broker-a","cluster":"DefaultCluster"}],"filterServerTable":{},"queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}]}`
	if got := string(rd.Encode(false)); got != want {
		t.Fatalf("legacy body\n got %s\nwant %s", got, want)
	}
	if r.PickupTopicRouteData("Nope") != nil {
		t.Fatal("unknown topic must have no route")
	}
	// The returned route is a copy: editing it leaves the table alone.
	rd.BrokerDatas[0].BrokerAddrs[0] = "x"
	if r.PickupTopicRouteData("TopicA").BrokerDatas[0].BrokerAddrs[0] != "10.0.0.1:10911" {
		t.Fatal("route data aliases the table")
	}
}

func TestRouteInfoDataVersionShortCut(t *testing.T) {
	r := NewRouteInfoManager(zaptest.NewLogger(t))
	reg(r, "broker-a", "a:1", 0, wrapper(1, "T1"), nil, 1)
	// Same data version: the new topic table is ignored.
	reg(r, "broker-a", "a:1", 0, wrapper(1, "T1", "T2"), nil, 2)
	if r.PickupTopicRouteData("T2") != nil {
		t.Fatal("same data version must not rebuild queue data")
	}
	if r.IsBrokerTopicConfigChanged("a:1", body.DataVersion{Timestamp: 1000, Counter: 1}) {
		t.Fatal("same version reported as changed")
	}
	// New data version: rebuilt.
	reg(r, "broker-a", "a:1", 0, wrapper(2, "T1", "T2"), nil, 3)
	if r.PickupTopicRouteData("T2") == nil {
		t.Fatal("new data version must add T2")
	}
	changed, nsDV := r.QueryDataVersion("a:1", body.DataVersion{Timestamp: 1000, Counter: 2}, 50)
	if changed || nsDV == nil || nsDV.Counter != 2 {
		t.Fatalf("query data version: %v %+v", changed, nsDV)
	}
	changed, _ = r.QueryDataVersion("a:1", body.DataVersion{Timestamp: 1000, Counter: 9}, 60)
	if !changed {
		t.Fatal("different version must report changed")
	}
	if changed, dv := r.QueryDataVersion("unknown:1", body.DataVersion{}, 1); !changed || dv != nil {
		t.Fatal("unknown broker: changed with no version")
	}
}

func TestRouteInfoSlaveGetsMasterAndKeepsRoute(t *testing.T) {
	r := NewRouteInfoManager(zaptest.NewLogger(t))
	reg(r, "broker-a", "m:1", 0, wrapper(1, "T"), nil, 1)
	res := reg(r, "broker-a", "s:1", 1, wrapper(7, "T", "SlaveOnly"), nil, 1)
	if res.MasterAddr != "m:1" || res.HaServerAddr != "m:1-ha" {
		t.Fatalf("slave result %+v", res)
	}
	if r.PickupTopicRouteData("SlaveOnly") != nil {
		t.Fatal("a slave's topic table must not create queue data")
	}
	// Master leaves: the slave keeps the brokerName and therefore the route.
	r.UnregisterBroker("DefaultCluster", "m:1", "broker-a", 0)
	rd := r.PickupTopicRouteData("T")
	if rd == nil || len(rd.BrokerDatas[0].BrokerAddrs) != 1 || rd.BrokerDatas[0].BrokerAddrs[1] != "s:1" {
		t.Fatalf("route after master left: %+v", rd)
	}
	r.UnregisterBroker("DefaultCluster", "s:1", "broker-a", 1)
	if r.PickupTopicRouteData("T") != nil || len(r.GetAllTopicList().TopicList) != 0 {
		t.Fatal("last address gone: topic must go")
	}
	if ci := r.GetAllClusterInfo(); len(ci.BrokerAddrTable) != 0 || len(ci.ClusterAddrTable) != 0 {
		t.Fatalf("cluster info not emptied: %+v", ci)
	}
}

func TestRouteInfoSlaveSwitchToMaster(t *testing.T) {
	r := NewRouteInfoManager(zaptest.NewLogger(t))
	reg(r, "b", "x:1", 1, wrapper(1), nil, 1)
	reg(r, "b", "x:1", 0, wrapper(1, "T"), nil, 2)
	addrs := r.GetAllClusterInfo().BrokerAddrTable["b"].BrokerAddrs
	if len(addrs) != 1 || addrs[0] != "x:1" {
		t.Fatalf("addr must be under one id only: %v", addrs)
	}
	if r.PickupTopicRouteData("T") == nil {
		t.Fatal("first registration as master must build queue data")
	}
}

func TestRouteInfoExpiryAndChannelClose(t *testing.T) {
	r := NewRouteInfoManager(zaptest.NewLogger(t))
	chA, chB := &fakeChannel{}, &fakeChannel{}
	reg(r, "a", "a:1", 0, wrapper(1, "T"), chA, 1000)
	reg(r, "b", "b:1", 0, wrapper(1, "T"), chB, 5000)
	if got := r.ScanNotActiveBroker(3000, 2000); len(got) != 0 {
		t.Fatalf("nothing expired yet, got %v", got)
	}
	got := r.ScanNotActiveBroker(3001, 2000)
	if len(got) != 1 || got[0].BrokerAddr != "a:1" || got[0].Channel != chA {
		t.Fatalf("expired = %+v", got)
	}
	rd := r.PickupTopicRouteData("T")
	if rd == nil || len(rd.QueueDatas) != 1 || rd.QueueDatas[0].BrokerName != "b" {
		t.Fatalf("route after expiry: %+v", rd)
	}
	// Heartbeat keeps b alive; then its channel closes.
	r.UpdateBrokerInfoUpdateTimestamp("b:1", 100000)
	if len(r.ScanNotActiveBroker(101000, 2000)) != 0 {
		t.Fatal("heartbeat did not refresh b")
	}
	r.OnChannelDestroy("127.0.0.1:5555", chB)
	if r.PickupTopicRouteData("T") != nil {
		t.Fatal("closed channel must remove its broker")
	}
	// A non-broker connection closing changes nothing.
	reg(r, "c", "c:1", 0, wrapper(1, "T"), &fakeChannel{}, 1)
	r.OnChannelDestroy("client:1", &fakeChannel{})
	if r.PickupTopicRouteData("T") == nil {
		t.Fatal("unrelated channel close removed a broker")
	}
}

func TestRouteInfoPermsDeleteAndLists(t *testing.T) {
	r := NewRouteInfoManager(zaptest.NewLogger(t))
	w := wrapper(1, "T1", "Unit", "UnitSub")
	u := w.TopicConfigTable["Unit"]
	u.TopicSysFlag = topicFlagUnit
	w.TopicConfigTable["Unit"] = u
	us := w.TopicConfigTable["UnitSub"]
	us.TopicSysFlag = topicFlagUnitSub
	w.TopicConfigTable["UnitSub"] = us
	reg(r, "a", "a:1", 0, w, nil, 1)
	r.RegisterBroker(RegisterBrokerArgs{ClusterName: "Other", BrokerName: "z", BrokerAddr: "z:1", Wrapper: wrapper(1, "T1", "ZOnly")})

	if n := r.WipeWritePermOfBroker("a"); n != 3 {
		t.Fatalf("wipe count %d", n)
	}
	if p := r.PickupTopicRouteData("T1").QueueDatas; p[slices.IndexFunc(p, func(q body.QueueData) bool { return q.BrokerName == "a" })].Perm != PermRead {
		t.Fatalf("perm after wipe: %+v", p)
	}
	if n := r.AddWritePermOfBroker("a"); n != 3 {
		t.Fatalf("add count %d", n)
	}
	if got := r.GetUnitTopics().TopicList; !slices.Equal(got, []string{"Unit"}) {
		t.Fatalf("unit topics %v", got)
	}
	if got := r.GetHasUnitSubTopicList().TopicList; !slices.Equal(got, []string{"UnitSub"}) {
		t.Fatalf("unit sub topics %v", got)
	}
	if got := r.GetHasUnitSubUnUnitTopicList().TopicList; !slices.Equal(got, []string{"UnitSub"}) {
		t.Fatalf("unit sub ununit %v", got)
	}
	byCluster := r.GetTopicsByCluster("Other").TopicList
	slices.Sort(byCluster)
	if !slices.Equal(byCluster, []string{"T1", "ZOnly"}) {
		t.Fatalf("topics by cluster %v", byCluster)
	}
	sys := r.GetSystemTopicList()
	slices.Sort(sys.TopicList)
	if !slices.Equal(sys.TopicList, []string{"DefaultCluster", "Other", "a", "z"}) || sys.BrokerAddr == "" {
		t.Fatalf("system topics %+v", sys)
	}
	r.DeleteTopic("T1", "Other")
	if rd := r.PickupTopicRouteData("T1"); rd == nil || len(rd.QueueDatas) != 1 {
		t.Fatalf("delete in one cluster: %+v", rd)
	}
	r.DeleteTopic("T1", "")
	if r.PickupTopicRouteData("T1") != nil {
		t.Fatal("delete everywhere")
	}
	r.RegisterTopic("New", []body.QueueData{{BrokerName: "unknown"}})
	if r.PickupTopicRouteData("New") != nil {
		t.Fatal("register topic with unknown broker must be refused")
	}
	r.RegisterTopic("New", []body.QueueData{{BrokerName: "a", ReadQueueNums: 2, WriteQueueNums: 2, Perm: 6}})
	if rd := r.PickupTopicRouteData("New"); rd == nil || rd.QueueDatas[0].ReadQueueNums != 2 {
		t.Fatalf("register topic: %+v", rd)
	}
	if g := r.GetBrokerMemberGroup("DefaultCluster", "a"); g.BrokerAddrs[0] != "a:1" {
		t.Fatalf("member group %+v", g)
	}
}

func TestRouteInfoCachedBodyFollowsChanges(t *testing.T) {
	r := NewRouteInfoManager(zaptest.NewLogger(t))
	if r.TopicRouteBody("T", false) != nil {
		t.Fatal("no route expected")
	}
	reg(r, "a", "a:1", 0, wrapper(1, "T"), nil, 1)
	first := string(r.TopicRouteBody("T", false))
	if first != string(r.PickupTopicRouteData("T").Encode(false)) || first != string(r.TopicRouteBody("T", false)) {
		t.Fatal("cached body differs from a fresh encode")
	}
	reg(r, "a", "a:2", 1, wrapper(1, "T"), nil, 2)
	if got := string(r.TopicRouteBody("T", false)); got == first || got != string(r.PickupTopicRouteData("T").Encode(false)) {
		t.Fatalf("cache not invalidated by a new slave: %s", got)
	}
	r.WipeWritePermOfBroker("a")
	if got := r.TopicRouteBody("T", true); string(got) != string(r.PickupTopicRouteData("T").Encode(true)) {
		t.Fatalf("cache not invalidated by wipe: %s", got)
	}
	r.DeleteTopic("T", "")
	if r.TopicRouteBody("T", false) != nil || r.TopicRouteBody("T", true) != nil {
		t.Fatal("deleted topic still cached")
	}
}

func TestRouteInfoPerBrokerHeartbeatTimeout(t *testing.T) {
	r := NewRouteInfoManager(zaptest.NewLogger(t))
	r.RegisterBroker(RegisterBrokerArgs{ClusterName: "c", BrokerName: "a", BrokerAddr: "a:1", Wrapper: wrapper(1, "T"), NowMillis: 0, HeartbeatTimeoutMillis: 10000})
	r.RegisterBroker(RegisterBrokerArgs{ClusterName: "c", BrokerName: "b", BrokerAddr: "b:1", Wrapper: wrapper(1, "T"), NowMillis: 0})
	got := r.ScanNotActiveBroker(5000, 2000)
	if len(got) != 1 || got[0].BrokerAddr != "b:1" {
		t.Fatalf("only b (default expiry) should expire: %+v", got)
	}
	if got := r.ScanNotActiveBroker(10001, 2000); len(got) != 1 || got[0].BrokerAddr != "a:1" {
		t.Fatalf("a should expire after its own timeout: %+v", got)
	}
}
