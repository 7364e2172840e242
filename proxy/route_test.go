package proxy_test

import (
	"testing"

	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
)

func TestProxyQueryRoute(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := startEnv(t, mode)
		e.createTopic(t, "RouteTopic", 4)
		resp, err := e.cli.QueryRoute(e.ctx(t, newClientID()), &apiv2.QueryRouteRequest{Topic: &apiv2.Resource{Name: "RouteTopic"}, Endpoints: e.endpoints()})
		if err != nil {
			t.Fatal(err)
		}
		if resp.GetStatus().GetCode() != apiv2.Code_OK {
			t.Fatalf("status %v", resp.GetStatus())
		}
		if len(resp.GetMessageQueues()) != 4 {
			t.Fatalf("queues %d, want 4", len(resp.GetMessageQueues()))
		}
		want := e.endpoints().GetAddresses()[0]
		for i, q := range resp.GetMessageQueues() {
			if q.GetId() != int32(i) || q.GetPermission() != apiv2.Permission_READ_WRITE || q.GetBroker().GetName() != "broker-a" || q.GetBroker().GetId() != 0 {
				t.Fatalf("queue %d: %v", i, q)
			}
			got := q.GetBroker().GetEndpoints().GetAddresses()
			if len(got) != 1 || got[0].GetHost() != want.GetHost() || got[0].GetPort() != want.GetPort() {
				t.Fatalf("queue %d endpoints %v, want the proxy %v", i, got, want)
			}
			if len(q.GetAcceptMessageTypes()) != 4 {
				t.Fatalf("accept types %v", q.GetAcceptMessageTypes())
			}
		}
	})
}

func TestProxyQueryRouteErrors(t *testing.T) {
	e := startEnv(t, "cluster")
	cases := []struct {
		name     string
		clientID string
		topic    string
		want     apiv2.Code
	}{
		{"unknown topic", newClientID(), "NoSuchTopic", apiv2.Code_TOPIC_NOT_FOUND},
		{"empty topic", newClientID(), "", apiv2.Code_ILLEGAL_TOPIC},
		{"bad chars", newClientID(), "a b", apiv2.Code_ILLEGAL_TOPIC},
		{"system topic", newClientID(), "SCHEDULE_TOPIC_XXXX", apiv2.Code_ILLEGAL_TOPIC},
		{"no client id", "", "RouteTopic", apiv2.Code_CLIENT_ID_REQUIRED},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, err := e.cli.QueryRoute(e.ctx(t, c.clientID), &apiv2.QueryRouteRequest{Topic: &apiv2.Resource{Name: c.topic}, Endpoints: e.endpoints()})
			if err != nil {
				t.Fatal(err)
			}
			if resp.GetStatus().GetCode() != c.want {
				t.Fatalf("status %v, want %v", resp.GetStatus(), c.want)
			}
		})
	}
}
