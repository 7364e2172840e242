package compat

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// The "clients" golden set (../shared/golden/clients, see its README): what
// Apache RocketMQ 4.9.8 exchanged with rocketmq-client-cpp (cpp-json),
// ali-ons (node-json) and ACL-signed Java clients (acl-*). These tests
// decode every frame as our servers would and check the values Apache saw.

// clientSessions are the sessions of the set.
var clientSessions = []string{"cpp-json", "node-json", "acl-json", "acl-rocketmq-client", "acl-rocketmq-server"}

// clientFrame is one frame of the set: its manifest row, its headers.jsonl
// record and its bytes.
type clientFrame struct {
	row   manifestRow
	rec   clientRecord
	bytes []byte
}

// clientRecord is one headers.jsonl line: the header as the broker saw it
// (extFields all strings) and, where the body is JSON, the body.
type clientRecord struct {
	File   string `json:"file"`
	Header struct {
		Code      int32             `json:"code"`
		ExtFields map[string]string `json:"extFields"`
		Remark    *string           `json:"remark"`
	} `json:"header"`
	BodyJSON json.RawMessage `json:"bodyJson"`
}

// loadClientFrames reads the whole set, or skips when it is absent.
func loadClientFrames(t *testing.T) (dir string, frames []clientFrame, byFile map[string]*clientFrame) {
	t.Helper()
	dir = filepath.Join(goldenDir(t), "clients")
	manifest := filepath.Join(dir, "frames", "manifest.tsv")
	if _, err := os.Stat(manifest); err != nil {
		t.Skipf("clients golden set not found (%v): set RMQ_GOLDEN_DIR or place it at ../shared/golden", err)
	}
	recs := map[string]clientRecord{}
	f, err := os.Open(filepath.Join(dir, "frames", "headers.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var r clientRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("headers.jsonl: %v", err)
		}
		recs[r.File] = r
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, row := range readTSV(t, manifest) {
		b, err := os.ReadFile(filepath.Join(dir, row["file"]))
		if err != nil {
			t.Fatal(err)
		}
		rec, ok := recs[row["file"]]
		if !ok {
			t.Fatalf("%s missing from headers.jsonl", row["file"])
		}
		frames = append(frames, clientFrame{row: row, rec: rec, bytes: b})
	}
	byFile = make(map[string]*clientFrame, len(frames))
	for i := range frames {
		byFile[frames[i].row["file"]] = &frames[i]
	}
	return dir, frames, byFile
}

// clientExtraKeys are extFields no 4.9.8 header class declares: the ACL
// hook's and the C++ client's signing fields.
var clientExtraKeys = map[string]bool{"AccessKey": true, "Signature": true, "SecurityToken": true, "OnsChannel": true}

// TestCompatClientsGoldenDecode decodes every frame of the clients set:
// the frame, the typed header of every request (values as the broker saw
// them, signing fields kept), and every JSON body we parse.
func TestCompatClientsGoldenDecode(t *testing.T) {
	_, frames, byFile := loadClientFrames(t)
	perSession := map[string]int{}
	bodies := map[string]int{}
	signed := map[string]int{} // requests whose decoded extFields keep AccessKey and Signature
	for i := range frames {
		fr := &frames[i]
		name := fr.row["file"]
		perSession[fr.row["session"]]++
		cmd, err := codec.Decode(fr.bytes)
		if err != nil {
			t.Errorf("%s: codec.Decode: %v", name, err)
			continue
		}
		want := fr.rec.Header.ExtFields
		if len(want) > 0 || len(cmd.ExtFields) > 0 {
			if !reflect.DeepEqual(cmd.ExtFields, want) {
				t.Errorf("%s: extFields\n got %v\nwant %v", name, cmd.ExtFields, want)
			}
		}
		if cmd.Code != fr.rec.Header.Code {
			t.Errorf("%s: code %d, recorded %d", name, cmd.Code, fr.rec.Header.Code)
		}
		if fr.row["type"] == "response" {
			if req := byFile[fr.row["pair_file"]]; req != nil {
				checkClientResponseBody(t, name, req.rec.Header.Code, cmd, fr.rec.BodyJSON, bodies)
			}
			continue
		}
		if _, ok := cmd.ExtFields["AccessKey"]; ok && cmd.ExtFields["Signature"] != "" {
			signed[fr.row["session"]]++
		}
		if h := header.NewRequestHeader(cmd.Code); h != nil {
			checkClientHeader(t, name, h, cmd.ExtFields)
		}
		checkClientRequestBody(t, name, cmd, fr.rec.BodyJSON, bodies)
	}
	for _, s := range clientSessions {
		if perSession[s] == 0 {
			t.Errorf("session %s: no frame", s)
		}
	}
	for _, k := range []string{"HEART_BEAT", "LOCK_BATCH_MQ", "UNLOCK_BATCH_MQ", "resp LOCK_BATCH_MQ",
		"resp GET_CONSUMER_LIST_BY_GROUP", "resp GET_ROUTEINFO_BY_TOPIC", "REGISTER_BROKER", "QUERY_DATA_VERSION"} {
		if bodies[k] == 0 {
			t.Errorf("no %s body checked", k)
		}
	}
	// The README's count of signed requests (source/aclsig.py recomputed
	// every one): ACL is not enforced yet, but no signature may be lost.
	wantSigned := map[string]int{"cpp-json": 72, "acl-json": 96, "acl-rocketmq-client": 100, "acl-rocketmq-server": 97}
	if !reflect.DeepEqual(signed, wantSigned) {
		t.Errorf("signed requests per session %v, want %v", signed, wantSigned)
	}
	t.Logf("frames per session %v; bodies checked %v", perSession, bodies)
}

// checkClientHeader decodes ext into h and checks that re-encoding gives
// back every value the header declares. A declared key sent as "" (the C++
// client's unused group of UNREGISTER_CLIENT) is a null on the way out.
func checkClientHeader(t *testing.T, name string, h header.CommandCustomHeader, ext map[string]string) {
	t.Helper()
	if err := h.FromExtFields(ext); err != nil {
		t.Errorf("%s: %T.FromExtFields(%v): %v", name, h, ext, err)
		return
	}
	keys := headerKeys(h)
	got := h.ToExtFields()
	for k, v := range ext {
		switch {
		case keys[k]:
			if g, ok := got[k]; g != v && (ok || v != "") {
				t.Errorf("%s: %T key %s re-encoded %q, sent %q", name, h, k, g, v)
			}
		case !clientExtraKeys[k]:
			t.Errorf("%s: %T has no field for sent key %s=%q", name, h, k, v)
		}
	}
}

// javaOrdinals are the heartbeat enums of 4.9.8, constants in ordinal
// order: the oracle for the C++ client's numbers.
var javaOrdinals = map[string][]string{
	"consumeType":      {"CONSUME_ACTIVELY", "CONSUME_PASSIVELY"},
	"messageModel":     {"BROADCASTING", "CLUSTERING"},
	"consumeFromWhere": {"CONSUME_FROM_LAST_OFFSET", "CONSUME_FROM_LAST_OFFSET_AND_FROM_MIN_WHEN_BOOT_FIRST", "CONSUME_FROM_MIN_OFFSET", "CONSUME_FROM_MAX_OFFSET", "CONSUME_FROM_FIRST_OFFSET", "CONSUME_FROM_TIMESTAMP"},
}

// javaEnum is the constant a recorded enum value (name or ordinal) names.
func javaEnum(t *testing.T, field string, v any) string {
	t.Helper()
	switch x := v.(type) {
	case string:
		return x
	case float64:
		if names := javaOrdinals[field]; int(x) >= 0 && int(x) < len(names) {
			return names[int(x)]
		}
	case nil:
		return ""
	}
	t.Fatalf("%s: unexpected recorded value %v", field, v)
	return ""
}

// javaLong is a recorded long written as a number or a string.
func javaLong(t *testing.T, v any) int64 {
	t.Helper()
	switch x := v.(type) {
	case float64:
		return int64(x)
	case string:
		n, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	return 0
}

func checkClientRequestBody(t *testing.T, name string, cmd *codec.RemotingCommand, recorded json.RawMessage, seen map[string]int) {
	t.Helper()
	switch cmd.Code {
	case code.HeartBeat:
		seen["HEART_BEAT"]++
		checkClientHeartbeat(t, name, cmd.Body, recorded)
	case code.LockBatchMq, code.UnlockBatchMq:
		seen[code.RequestName(cmd.Code)]++
		got, err := body.DecodeLockBatchRequestBody(cmd.Body)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			return
		}
		var want struct {
			ClientID      string              `json:"clientId"`
			ConsumerGroup string              `json:"consumerGroup"`
			MqSet         []body.MessageQueue `json:"mqSet"`
		}
		mustUnmarshal(t, recorded, &want)
		if got.ClientID != want.ClientID || got.ConsumerGroup != want.ConsumerGroup || !reflect.DeepEqual(got.MqSet, want.MqSet) {
			t.Errorf("%s: decoded %+v, recorded %s", name, got, recorded)
		}
	case code.RegisterBroker:
		seen["REGISTER_BROKER"]++
		rb, err := body.DecodeRegisterBrokerBody(cmd.Body, cmd.ExtFields["compressed"] == "true")
		if err != nil {
			t.Errorf("%s: register body: %v", name, err)
		} else if len(rb.TopicConfigSerializeWrapper.TopicConfigTable) == 0 {
			t.Errorf("%s: register body without topics", name)
		}
	case code.QueryDataVersion:
		seen["QUERY_DATA_VERSION"]++
		dv, err := body.DecodeDataVersion(cmd.Body)
		var want body.DataVersion
		mustUnmarshal(t, recorded, &want)
		if err != nil || *dv != want {
			t.Errorf("%s: data version %+v (%v), recorded %s", name, dv, err, recorded)
		}
	}
}

func checkClientHeartbeat(t *testing.T, name string, data []byte, recorded json.RawMessage) {
	t.Helper()
	hb, err := body.DecodeHeartbeatData(data)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	var want struct {
		ClientID        string `json:"clientID"`
		ProducerDataSet []struct {
			GroupName string `json:"groupName"`
		} `json:"producerDataSet"`
		ConsumerDataSet []map[string]any `json:"consumerDataSet"`
	}
	mustUnmarshal(t, recorded, &want)
	if hb.ClientID != want.ClientID || len(hb.ProducerDataSet) != len(want.ProducerDataSet) ||
		len(hb.ConsumerDataSet) != len(want.ConsumerDataSet) {
		t.Errorf("%s: decoded %+v, recorded %s", name, hb, recorded)
		return
	}
	for i, p := range want.ProducerDataSet {
		if hb.ProducerDataSet[i].GroupName != p.GroupName {
			t.Errorf("%s: producer %d %q, recorded %q", name, i, hb.ProducerDataSet[i].GroupName, p.GroupName)
		}
	}
	for i, wc := range want.ConsumerDataSet {
		c := hb.ConsumerDataSet[i]
		got := []string{c.GroupName, c.ConsumeType, c.MessageModel, c.ConsumeFromWhere}
		group, _ := wc["groupName"].(string)
		exp := []string{group, javaEnum(t, "consumeType", wc["consumeType"]),
			javaEnum(t, "messageModel", wc["messageModel"]), javaEnum(t, "consumeFromWhere", wc["consumeFromWhere"])}
		if !reflect.DeepEqual(got, exp) {
			t.Errorf("%s: consumer %d %q, Apache saw %q", name, i, got, exp)
		}
		subs, _ := wc["subscriptionDataSet"].([]any)
		if len(subs) != len(c.SubscriptionDataSet) {
			t.Errorf("%s: %d subscriptions, recorded %d", name, len(c.SubscriptionDataSet), len(subs))
			continue
		}
		for j, s := range subs {
			ws, sd := s.(map[string]any), c.SubscriptionDataSet[j]
			wantType := "TAG" // the Java field initialiser when the client leaves it out
			if et, ok := ws["expressionType"].(string); ok {
				wantType = et
			}
			if sd.Topic != ws["topic"] || sd.SubString != ws["subString"] || sd.SubVersion != javaLong(t, ws["subVersion"]) ||
				sd.ExpressionType != wantType {
				t.Errorf("%s: subscription %+v, recorded %v", name, sd, ws)
			}
		}
	}
}

func checkClientResponseBody(t *testing.T, name string, reqCode int32, cmd *codec.RemotingCommand, recorded json.RawMessage, seen map[string]int) {
	t.Helper()
	if cmd.Code != code.Success || len(cmd.Body) == 0 {
		return
	}
	switch reqCode {
	case code.GetConsumerListByGroup:
		seen["resp GET_CONSUMER_LIST_BY_GROUP"]++
		got, err := body.DecodeGetConsumerListByGroupResponseBody(cmd.Body)
		var want struct {
			ConsumerIDList []string `json:"consumerIdList"`
		}
		mustUnmarshal(t, recorded, &want)
		if err != nil || !reflect.DeepEqual(got.ConsumerIDList, want.ConsumerIDList) {
			t.Errorf("%s: consumer list %+v (%v), recorded %s", name, got, err, recorded)
		}
	case code.LockBatchMq:
		seen["resp LOCK_BATCH_MQ"]++
		got, err := body.DecodeLockBatchResponseBody(cmd.Body)
		var want struct {
			LockOKMQSet []body.MessageQueue `json:"lockOKMQSet"`
		}
		mustUnmarshal(t, recorded, &want)
		if err != nil || !reflect.DeepEqual(got.LockOKMQSet, want.LockOKMQSet) {
			t.Errorf("%s: lock answer %+v (%v), recorded %s", name, got, err, recorded)
		}
	case code.GetRouteinfoByTopic:
		seen["resp GET_ROUTEINFO_BY_TOPIC"]++
		rd, err := body.DecodeTopicRouteData(cmd.Body)
		if err != nil || len(rd.BrokerDatas) == 0 || len(rd.QueueDatas) == 0 || rd.BrokerDatas[0].BrokerAddrs[0] == "" {
			t.Errorf("%s: route %+v (%v)", name, rd, err)
		}
	case code.GetBrokerClusterInfo:
		seen["resp GET_BROKER_CLUSTER_INFO"]++
		ci, err := body.DecodeClusterInfo(cmd.Body)
		if err != nil || len(ci.BrokerAddrTable) == 0 {
			t.Errorf("%s: cluster info %+v (%v)", name, ci, err)
		}
	}
}

func mustUnmarshal(t *testing.T, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("recorded body %s: %v", data, err)
	}
}

// TestCompatClientsGoldenTypedValues spot-checks typed header values the
// non-Java clients write differently: JSON numbers and booleans in
// extFields, the C++ batch flag, ali-ons' unitMode false.
func TestCompatClientsGoldenTypedValues(t *testing.T) {
	_, frames, _ := loadClientFrames(t)
	var cppPull, cppBatch, nodeSend, nodeOffset bool
	cppHeartbeats := map[string][3]string{} // group -> consumeType, messageModel, consumeFromWhere
	for _, fr := range frames {
		if fr.row["type"] == "response" {
			continue
		}
		cmd, err := codec.Decode(fr.bytes)
		if err != nil {
			continue // reported by TestCompatClientsGoldenDecode
		}
		session := fr.row["session"]
		switch {
		case session == "cpp-json" && cmd.Code == code.HeartBeat:
			hb, err := body.DecodeHeartbeatData(cmd.Body)
			if err != nil {
				t.Fatalf("%s: %v", fr.row["file"], err)
			}
			for _, c := range hb.ConsumerDataSet {
				cppHeartbeats[c.GroupName] = [3]string{c.ConsumeType, c.MessageModel, c.ConsumeFromWhere}
			}
		case session == "cpp-json" && cmd.Code == code.PullMessage:
			var h header.PullMessageRequestHeader
			if err := h.FromExtFields(cmd.ExtFields); err != nil {
				t.Fatal(err)
			}
			// FLAG_SUBSCRIPTION always set; the push consumer suspends.
			if h.SysFlag&pullFlagSubscription == 0 || h.Subscription != "*" || h.SubVersion == 0 && h.SysFlag != 4 ||
				h.MaxMsgNums <= 0 || h.ExpressionType != "" {
				t.Errorf("%s: %+v", fr.row["file"], h)
			}
			cppPull = true
		case session == "cpp-json" && cmd.Code == code.SendMessageV2 && strings.Contains(fr.row["note"], "CppBatchTopic"):
			var h header.SendMessageRequestHeaderV2
			if err := h.FromExtFields(cmd.ExtFields); err != nil {
				t.Fatal(err)
			}
			if !h.Batch || h.MaxReconsumeTimes == nil || *h.MaxReconsumeTimes != 16 || h.Topic != "CppBatchTopic" {
				t.Errorf("%s: %+v", fr.row["file"], h)
			}
			cppBatch = true
		case session == "node-json" && cmd.Code == code.SendMessageV2:
			var h header.SendMessageRequestHeaderV2
			if err := h.FromExtFields(cmd.ExtFields); err != nil {
				t.Fatal(err)
			}
			if h.UnitMode || h.Batch || h.MaxReconsumeTimes != nil || h.Topic != "NodeTopic" || h.BornTimestamp < 1e12 {
				t.Errorf("%s: %+v", fr.row["file"], h)
			}
			nodeSend = true
		case session == "node-json" && cmd.Code == code.UpdateConsumerOffset:
			var h header.UpdateConsumerOffsetRequestHeader
			if err := h.FromExtFields(cmd.ExtFields); err != nil {
				t.Fatal(err)
			}
			if h.ConsumerGroup != "node_consumer_group" || h.Topic != "NodeTopic" || h.CommitOffset < -1 {
				t.Errorf("%s: %+v", fr.row["file"], h)
			}
			nodeOffset = true
		}
	}
	// The README: push consumers send 1/1/4, the pull consumer 0/1/0.
	wantHeartbeats := map[string][3]string{
		"cpp_consumer_group":         {body.ConsumePassively, body.Clustering, body.ConsumeFromFirstOffset},
		"cpp_orderly_consumer_group": {body.ConsumePassively, body.Clustering, body.ConsumeFromFirstOffset},
		"cpp_pull_consumer_group":    {body.ConsumeActively, body.Clustering, body.ConsumeFromLastOffset},
	}
	if !reflect.DeepEqual(cppHeartbeats, wantHeartbeats) {
		t.Errorf("C++ heartbeats %v, want %v", cppHeartbeats, wantHeartbeats)
	}
	if !cppPull || !cppBatch || !nodeSend || !nodeOffset {
		t.Fatalf("frames not found: cpp pull %v, cpp batch %v, node send %v, node offset %v", cppPull, cppBatch, nodeSend, nodeOffset)
	}
}
