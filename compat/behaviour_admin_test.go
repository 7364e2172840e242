package compat

import (
	"fmt"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// Admin topic creation (Java AdminBrokerProcessor.updateAndCreateTopic) and
// the incremental registration that makes the name server route it.

func createTopicExt(topic string, read, write, perm string) map[string]string {
	return map[string]string{
		"topic": topic, "defaultTopic": "TBW102", "readQueueNums": read, "writeQueueNums": write,
		"perm": perm, "topicFilterType": "SINGLE_TAG", "topicSysFlag": "0", "order": "false",
	}
}

func TestCompatAdminCreateTopicThenRoute(t *testing.T) {
	tg := newTarget(t)
	forEachSer(t, func(t *testing.T, ser codec.SerializeType) {
		topic := uniq("CompatAdmin")
		resp := tg.mustCall(t, tg.BrokerAddr, request(code.UpdateAndCreateTopic, createTopicExt(topic, "4", "4", "6"), nil, ser))
		// createResponseCommand(null) leaves this remark in place when the
		// code is then set to SUCCESS.
		wantCode(t, resp, code.Success, "not set any response code")
		wantSer(t, resp, ser)
		_, route := tg.waitRoute(t, topic)
		if q := queueDataOf(route, tg.BrokerName); q.ReadQueueNums != 4 || q.WriteQueueNums != 4 || q.Perm != 6 || q.TopicSysFlag != 0 {
			t.Fatalf("route queue data %+v, want 4/4 perm 6", q)
		}
		if len(route.BrokerDatas) == 0 || route.BrokerDatas[0].BrokerAddrs[0] == "" {
			t.Fatalf("route broker data %+v", route.BrokerDatas)
		}

		// Updating the same topic re-registers it with the new shape.
		resp = tg.mustCall(t, tg.BrokerAddr, request(code.UpdateAndCreateTopic, createTopicExt(topic, "2", "8", "4"), nil, ser))
		wantCode(t, resp, code.Success, "not set any response code")
		testutil.Eventually(t, 15*time.Second, func() error {
			resp, err := tg.call(tg.NamesrvAddr, codec.NewRequest(code.GetRouteinfoByTopic, map[string]string{"topic": topic}, nil))
			if err != nil {
				return err
			}
			route, err := body.DecodeTopicRouteData(resp.Body)
			if err != nil {
				return fmt.Errorf("route after update: code %d %q: %w", resp.Code, resp.Remark, err)
			}
			if q := queueDataOf(route, tg.BrokerName); q == nil || q.ReadQueueNums != 2 || q.WriteQueueNums != 8 || q.Perm != 4 {
				return fmt.Errorf("route after update: %s", resp.Body)
			}
			return nil
		})
	})
}

func TestCompatAdminCreateTopicRejected(t *testing.T) {
	tg := newTarget(t)
	cases := []struct{ name, topic, remark string }{
		{"IllegalChars", "bad topic!", "The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"},
		{"SystemPrefix", "rmq_sys_" + uniq("compat"), ""},
	}
	cases[1].remark = "The topic[" + cases[1].topic + "] is conflict with system topic."
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			forEachSer(t, func(t *testing.T, ser codec.SerializeType) {
				resp := tg.mustCall(t, tg.BrokerAddr, request(code.UpdateAndCreateTopic, createTopicExt(c.topic, "4", "4", "6"), nil, ser))
				wantCode(t, resp, code.SystemError, c.remark)
				wantSer(t, resp, ser)
			})
			resp := tg.mustCall(t, tg.NamesrvAddr, codec.NewRequest(code.GetRouteinfoByTopic, map[string]string{"topic": c.topic}, nil))
			wantCode(t, resp, code.TopicNotExist, "")
		})
	}
}
