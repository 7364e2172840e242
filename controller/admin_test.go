package controller_test

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// rawCall writes one JSON-serialized request frame built by hand, the way a
// 5.x mqadmin (RemotingCommand.encode) lays it out, and decodes the answer
// with our codec.
func rawCall(t *testing.T, addr, jsonHeader string, reqBody []byte) *codec.RemotingCommand {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	frame := binary.BigEndian.AppendUint32(nil, uint32(4+len(jsonHeader)+len(reqBody)))
	frame = binary.BigEndian.AppendUint32(frame, uint32(len(jsonHeader))) // serialize type JSON (0) in the top byte
	frame = append(append(frame, jsonHeader...), reqBody...)
	if _, err := c.Write(frame); err != nil {
		t.Fatal(err)
	}
	var lenBuf [4]byte
	if _, err := io.ReadFull(c, lenBuf[:]); err != nil {
		t.Fatal(err)
	}
	rest := make([]byte, binary.BigEndian.Uint32(lenBuf[:]))
	if _, err := io.ReadFull(c, rest); err != nil {
		t.Fatal(err)
	}
	resp, err := codec.Decode(append(lenBuf[:], rest...))
	if err != nil {
		t.Fatal(err)
	}
	if !resp.IsResponse() || resp.Opaque != 7 {
		t.Fatalf("not our response: %+v", resp)
	}
	return resp
}

// TestControllerAdminRawFrames serves 5.x admin requests sent as raw frames
// (getControllerMetaData, electMaster with designateElect, getSyncStateSet)
// on the controller's single port and checks the answers a 5.x mqadmin would
// decode.
func TestControllerAdminRawFrames(t *testing.T) {
	cl := testutil.StartControllers(t, 1)
	leader := cl.Leader(t)
	addr := cl.Addrs[0]

	resp := rawCall(t, addr, `{"code":1005,"extFields":{},"flag":0,"language":"JAVA","opaque":7,"serializeTypeCurrentRPC":"JSON","version":475}`, nil)
	var md header.GetMetaDataResponseHeader
	if err := md.FromExtFields(resp.ExtFields); err != nil || resp.Code != code.Success {
		t.Fatalf("metadata: %v %+v", err, resp)
	}
	if md.Group != "group1" || md.ControllerLeaderID != "n0" || md.ControllerLeaderAddress != addr || !md.IsLeader ||
		md.Peers != "n0:"+addr+";" || resp.ExtFields["isLeader"] != "true" {
		t.Fatalf("metadata = %+v (ext %v)", md, resp.ExtFields)
	}

	var epoch atomic.Int32
	b := startFakeBroker(t, cl)
	b.register(t)
	b.heartbeatLoop(&epoch)
	testutil.Eventually(t, 5*time.Second, func() error {
		if !leader.Heartbeats().IsActive("DefaultCluster", "broker-a", 1) {
			return fmt.Errorf("no heartbeat yet")
		}
		return nil
	})

	// mqadmin electMaster -b <id> (ElectMasterRequestHeader.ofAdminTrigger).
	resp = rawCall(t, addr, `{"code":1002,"extFields":{"brokerId":"1","brokerName":"broker-a","clusterName":"DefaultCluster","designateElect":"true","invokeTime":"1700000000000"},"flag":0,"language":"JAVA","opaque":7,"serializeTypeCurrentRPC":"JSON","version":475}`, nil)
	if resp.Code != code.Success {
		t.Fatalf("electMaster: %d %s", resp.Code, resp.Remark)
	}
	want := map[string]string{"masterBrokerId": "1", "masterAddress": b.addr, "masterEpoch": "1", "syncStateSetEpoch": "1"}
	for k, v := range want {
		if resp.ExtFields[k] != v {
			t.Fatalf("electMaster ext = %v, want %v", resp.ExtFields, want)
		}
	}
	if got := string(resp.Body); got != `{"brokerMemberGroup":{"brokerAddrs":{1:"`+b.addr+`"},"brokerName":"broker-a","cluster":"DefaultCluster"},"syncStateSet":[1]}` {
		t.Fatalf("electMaster body %s", got)
	}
	// Asking again: the master stays (CONTROLLER_MASTER_STILL_EXIST).
	resp = rawCall(t, addr, `{"code":1002,"extFields":{"brokerId":"1","brokerName":"broker-a","clusterName":"DefaultCluster","designateElect":"true","invokeTime":"1700000000001"},"flag":0,"language":"JAVA","opaque":7,"serializeTypeCurrentRPC":"JSON","version":475}`, nil)
	if resp.Code != code.ControllerMasterStillExist {
		t.Fatalf("second electMaster: %d %s", resp.Code, resp.Remark)
	}

	// mqadmin getSyncStateSet -b broker-a.
	resp = rawCall(t, addr, `{"code":1006,"extFields":{},"flag":0,"language":"JAVA","opaque":7,"serializeTypeCurrentRPC":"JSON","version":475}`, []byte(`["broker-a"]`))
	if resp.Code != code.Success {
		t.Fatalf("getSyncStateSet: %d %s", resp.Code, resp.Remark)
	}
	info, err := body.DecodeBrokerReplicasInfo(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	ri := info.ReplicasInfoTable["broker-a"]
	if ri == nil || *ri.MasterBrokerID != 1 || ri.MasterAddress != b.addr || ri.MasterEpoch != 1 || ri.SyncStateSetEpoch != 1 ||
		len(ri.InSyncReplicas) != 1 || !ri.InSyncReplicas[0].Alive || len(ri.NotInSyncReplicas) != 0 {
		t.Fatalf("sync state data = %s", resp.Body)
	}
	// mqadmin updateControllerConfig / getControllerConfig.
	resp = rawCall(t, addr, `{"code":1009,"flag":0,"language":"JAVA","opaque":7,"serializeTypeCurrentRPC":"JSON","version":475}`, []byte("configStorePath=/tmp/x\n"))
	if resp.Code != code.NoPermission || resp.Remark != "Can not update config in black list." {
		t.Fatalf("update black-listed key: %d %s", resp.Code, resp.Remark)
	}
	resp = rawCall(t, addr, `{"code":1009,"flag":0,"language":"JAVA","opaque":7,"serializeTypeCurrentRPC":"JSON","version":475}`, []byte("enableElectUncleanMaster=true\n"))
	if resp.Code != code.Success {
		t.Fatalf("update config: %d %s", resp.Code, resp.Remark)
	}
	resp = rawCall(t, addr, `{"code":1010,"flag":0,"language":"JAVA","opaque":7,"serializeTypeCurrentRPC":"JSON","version":475}`, nil)
	if resp.Code != code.Success || !strings.Contains(string(resp.Body), "enableElectUncleanMaster=true\n") {
		t.Fatalf("get config: %d %s", resp.Code, resp.Body)
	}
	// An unknown code on the controller port: REQUEST_CODE_NOT_SUPPORTED.
	resp = rawCall(t, addr, `{"code":1014,"flag":0,"language":"JAVA","opaque":7,"serializeTypeCurrentRPC":"JSON","version":475}`, nil)
	if resp.Code != code.RequestCodeNotSupported {
		t.Fatalf("code 1014: %d %s", resp.Code, resp.Remark)
	}
}
