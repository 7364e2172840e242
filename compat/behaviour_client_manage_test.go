package compat

import (
	"testing"

	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// Client registration (Java ClientManageProcessor heartBeat / unregisterClient
// and ConsumerManageProcessor.getConsumerListByGroup).

func TestCompatConsumerListAfterHeartbeatAndUnregister(t *testing.T) {
	tg := newTarget(t)
	forEachSer(t, func(t *testing.T, ser codec.SerializeType) {
		group, clientID := uniq("compat_list_cg"), "127.0.0.1@compat#"+uniq("c")
		listExt := map[string]string{"consumerGroup": group}

		resp := tg.mustCall(t, tg.BrokerAddr, request(code.GetConsumerListByGroup, listExt, nil, ser))
		wantCode(t, resp, code.SystemError, "no consumer for this group, "+group)
		wantSer(t, resp, ser)

		hb := &body.HeartbeatData{ClientID: clientID, ProducerDataSet: []body.ProducerData{}, ConsumerDataSet: []body.ConsumerData{{
			GroupName: group, ConsumeType: "CONSUME_PASSIVELY", MessageModel: "CLUSTERING", ConsumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
			SubscriptionDataSet: []body.SubscriptionData{{Topic: "TBW102", SubString: "*", TagsSet: []string{}, CodeSet: []int32{}, SubVersion: 1, ExpressionType: "TAG"}},
		}}}
		wantCode(t, tg.mustCall(t, tg.BrokerAddr, request(code.HeartBeat, nil, hb.Encode(), ser)), code.Success, "")

		resp = tg.mustCall(t, tg.BrokerAddr, request(code.GetConsumerListByGroup, listExt, nil, ser))
		wantCode(t, resp, code.Success, "")
		wantSer(t, resp, ser)
		if want := `{"consumerIdList":["` + clientID + `"]}`; string(resp.Body) != want {
			t.Fatalf("consumer list body %s, want %s", resp.Body, want)
		}

		resp = tg.mustCall(t, tg.BrokerAddr, request(code.UnregisterClient, map[string]string{"clientID": clientID, "consumerGroup": group}, nil, ser))
		wantCode(t, resp, code.Success, "")
		wantSer(t, resp, ser)

		// The group's last channel left, so the group is gone.
		resp = tg.mustCall(t, tg.BrokerAddr, request(code.GetConsumerListByGroup, listExt, nil, ser))
		wantCode(t, resp, code.SystemError, "no consumer for this group, "+group)
	})
}
