package broker_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

type assignmentAnswer struct {
	MessageQueueAssignments []struct {
		MessageQueue struct {
			BrokerName string `json:"brokerName"`
			QueueID    int32  `json:"queueId"`
			Topic      string `json:"topic"`
		} `json:"messageQueue"`
		Mode string `json:"mode"`
	} `json:"messageQueueAssignments"`
}

func queryAssignment(t *testing.T, cc *cmClient, topic, group, clientID string) (*codec.RemotingCommand, assignmentAnswer) {
	t.Helper()
	req := codec.NewRequest(code.QueryAssignment, nil, []byte(`{"clientId":"`+clientID+`","consumerGroup":"`+group+
		`","messageModel":"CLUSTERING","strategyName":"AVG","topic":"`+topic+`"}`))
	resp := cc.call(req)
	var a assignmentAnswer
	if resp.Code == code.Success {
		if err := json.Unmarshal(resp.Body, &a); err != nil {
			t.Fatalf("assignment body %q: %v", resp.Body, err)
		}
	}
	return resp, a
}

func queues(a assignmentAnswer) string {
	var s []string
	for _, x := range a.MessageQueueAssignments {
		s = append(s, x.MessageQueue.BrokerName+"/"+x.MessageQueue.Topic+"/"+strconv.Itoa(int(x.MessageQueue.QueueID))+"/"+x.Mode)
	}
	return strings.Join(s, ",")
}

// TestBrokerQueryAssignmentPullAndPop: a PULL group (the default) gets its
// AVG share of the topic's queues; after SET_MESSAGE_REQUEST_MODE POP
// (persisted to messageRequestMode.json, kept across a restart) every
// client gets the broker's queues as one queue id -1 in POP mode.
func TestBrokerQueryAssignmentPullAndPop(t *testing.T) {
	cfg, scfg := testutil.NewBrokerConfigs(t, "")
	b := testutil.StartBrokerWith(t, cfg, scfg)
	e := envFor(t, b)
	e.send("QaT", 0, nil, "x") // creates QaT with 4 queues
	c1, c2 := newCMClient(t, b.Addr().String(), "c1"), newCMClient(t, b.Addr().String(), "c2")
	c1.heartbeat("qg", "", "QaT")
	c2.heartbeat("qg", "", "QaT")
	_, a := queryAssignment(t, c1, "QaT", "qg", "c1")
	if got := queues(a); got != "broker-a/QaT/0/PULL,broker-a/QaT/1/PULL" {
		t.Fatalf("c1 PULL share %s", got)
	}
	_, a = queryAssignment(t, c2, "QaT", "qg", "c2")
	if got := queues(a); got != "broker-a/QaT/2/PULL,broker-a/QaT/3/PULL" {
		t.Fatalf("c2 PULL share %s", got)
	}
	set := func(topic string) *codec.RemotingCommand {
		return c1.call(codec.NewRequest(code.SetMessageRequestMode, nil,
			[]byte(`{"consumerGroup":"qg","mode":"POP","popShareQueueNum":0,"topic":"`+topic+`"}`)))
	}
	if resp := set("%RETRY%qg"); resp.Code != code.NoPermission || resp.Remark != "retry topic is not allowed to set mode" {
		t.Fatalf("retry topic: %s %q", code.ResponseName(resp.Code), resp.Remark)
	}
	if resp := set("NoSuch"); resp.Code != code.TopicNotExist || resp.Remark != "topic[NoSuch] not exist" {
		t.Fatalf("unknown topic: %s %q", code.ResponseName(resp.Code), resp.Remark)
	}
	if resp := set("QaT"); resp.Code != code.Success {
		t.Fatalf("set POP: %s %q", code.ResponseName(resp.Code), resp.Remark)
	}
	all := c1.call(codec.NewRequest(code.GetAllMessageRequestMode, nil, nil))
	if all.Code != code.Success || string(all.Body) != `{"messageRequestModeMap":{"QaT":{"qg":{"consumerGroup":"qg","mode":"POP","popShareQueueNum":0,"topic":"QaT"}}}}` {
		t.Fatalf("GET_ALL_MESSAGE_REQUEST_MODE: %s %s", code.ResponseName(all.Code), all.Body)
	}
	data, err := os.ReadFile(filepath.Join(scfg.StorePathRootDir, "config", "messageRequestMode.json"))
	if err != nil || !strings.Contains(string(data), `"mode":"POP"`) {
		t.Fatalf("messageRequestMode.json: %s %v", data, err)
	}
	for _, cc := range []*cmClient{c1, c2} {
		_, a = queryAssignment(t, cc, "QaT", "qg", cc.id)
		if got := queues(a); got != "broker-a/QaT/-1/POP" {
			t.Fatalf("%s POP assignment %s", cc.id, got)
		}
	}
	// Unknown topic: no valid answer, the body has no assignments.
	resp, a := queryAssignment(t, c1, "NoSuch", "qg", "c1")
	if resp.Code != code.Success || a.MessageQueueAssignments != nil {
		t.Fatalf("unknown topic: %s %s", code.ResponseName(resp.Code), resp.Body)
	}

	shutdownBroker(t, b)
	b2 := testutil.StartBrokerWith(t, cfg, scfg)
	c3 := newCMClient(t, b2.Addr().String(), "c3")
	c3.heartbeat("qg", "", "QaT")
	if _, a = queryAssignment(t, c3, "QaT", "qg", "c3"); queues(a) != "broker-a/QaT/-1/POP" {
		t.Fatalf("after restart %s", queues(a))
	}
}
