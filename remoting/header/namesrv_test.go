package header

import (
	"errors"
	"reflect"
	"testing"
)

func TestHeaderNamesrvRegisterBrokerRoundTrip(t *testing.T) {
	h := &RegisterBrokerRequestHeader{
		BrokerName: "broker-a", BrokerAddr: "127.0.0.1:30911", ClusterName: "DefaultCluster",
		HAServerAddr: "127.0.0.1:30912", BrokerID: 0, BodyCrc32: 116335474,
	}
	want := map[string]string{
		"brokerName": "broker-a", "brokerAddr": "127.0.0.1:30911", "clusterName": "DefaultCluster",
		"haServerAddr": "127.0.0.1:30912", "brokerId": "0", "compressed": "false", "bodyCrc32": "116335474",
	}
	got := h.ToExtFields()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ToExtFields = %v, want %v", got, want)
	}
	var back RegisterBrokerRequestHeader
	if err := back.FromExtFields(got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, h) {
		t.Fatalf("round trip = %+v, want %+v", back, *h)
	}
}

func TestHeaderNamesrvRegisterBroker5xOptional(t *testing.T) {
	ext := map[string]string{
		"brokerName": "b", "brokerAddr": "a:1", "clusterName": "c", "haServerAddr": "a:2", "brokerId": "1",
		"heartbeatTimeoutMillis": "30000", "enableActingMaster": "TRUE", "compressed": "true",
	}
	var h RegisterBrokerRequestHeader
	if err := h.FromExtFields(ext); err != nil {
		t.Fatal(err)
	}
	if h.HeartbeatTimeoutMillis == nil || *h.HeartbeatTimeoutMillis != 30000 {
		t.Fatalf("heartbeatTimeoutMillis = %v", h.HeartbeatTimeoutMillis)
	}
	if h.EnableActingMaster == nil || !*h.EnableActingMaster || !h.Compressed || h.BrokerID != 1 {
		t.Fatalf("decoded %+v", h)
	}
	if h.BodyCrc32 != 0 {
		t.Fatalf("bodyCrc32 default = %d, want 0", h.BodyCrc32)
	}
	if got := h.ToExtFields()["enableActingMaster"]; got != "true" {
		t.Fatalf("enableActingMaster re-encoded as %q", got)
	}
}

func TestHeaderNamesrvMissingRequired(t *testing.T) {
	var h RegisterBrokerRequestHeader
	err := h.FromExtFields(map[string]string{"brokerName": "b", "brokerAddr": "a", "clusterName": "c", "haServerAddr": "h"})
	if err == nil || err.Error() != "the custom field <brokerId> is null" {
		t.Fatalf("err = %v", err)
	}
	if !errors.Is(err, ErrFieldNull) {
		t.Fatalf("errors.Is(ErrFieldNull) false for %v", err)
	}
	var g GetRouteInfoRequestHeader
	if err := g.FromExtFields(nil); err == nil || err.Error() != "the custom field <topic> is null" {
		t.Fatalf("err = %v", err)
	}
}

func TestHeaderNamesrvBadNumber(t *testing.T) {
	var h UnRegisterBrokerRequestHeader
	err := h.FromExtFields(map[string]string{"brokerName": "b", "brokerAddr": "a", "clusterName": "c", "brokerId": "x1"})
	var bv *BadValueError
	if !errors.As(err, &bv) || bv.Field != "brokerId" || !errors.Is(err, ErrBadValue) {
		t.Fatalf("err = %v", err)
	}
}

func TestHeaderNamesrvOptionalOmitted(t *testing.T) {
	cases := []struct {
		h    CommandCustomHeader
		want map[string]string
	}{
		{&GetRouteInfoRequestHeader{Topic: "T"}, map[string]string{"topic": "T"}},
		{&GetRouteInfoRequestHeader{Topic: "T", AcceptStandardJSONOnly: Bool(false)}, map[string]string{"topic": "T", "acceptStandardJsonOnly": "false"}},
		{&RegisterBrokerResponseHeader{}, map[string]string{}},
		{&RegisterBrokerResponseHeader{MasterAddr: "m:1", HAServerAddr: "m:2"}, map[string]string{"masterAddr": "m:1", "haServerAddr": "m:2"}},
		{&GetKVConfigResponseHeader{}, map[string]string{}},
		{&GetKVConfigResponseHeader{Value: String("")}, map[string]string{"value": ""}},
		{&QueryDataVersionResponseHeader{}, map[string]string{"changed": "false"}},
		{&WipeWritePermOfBrokerResponseHeader{WipeTopicCount: 3}, map[string]string{"wipeTopicCount": "3"}},
		{&DeleteTopicFromNamesrvRequestHeader{Topic: "T"}, map[string]string{"topic": "T"}},
		{&BrokerHeartbeatRequestHeader{ClusterName: "c", BrokerAddr: "a", BrokerName: "b", Epoch: Int32(2)},
			map[string]string{"clusterName": "c", "brokerAddr": "a", "brokerName": "b", "epoch": "2"}},
	}
	for _, c := range cases {
		if got := c.h.ToExtFields(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%T: %v, want %v", c.h, got, c.want)
		}
	}
}

func TestHeaderNamesrvDecodeResets(t *testing.T) {
	h := RegisterBrokerResponseHeader{MasterAddr: "old"}
	if err := h.FromExtFields(map[string]string{"haServerAddr": "x", "unknown": "y"}); err != nil {
		t.Fatal(err)
	}
	if h.MasterAddr != "" || h.HAServerAddr != "x" {
		t.Fatalf("got %+v", h)
	}
}
