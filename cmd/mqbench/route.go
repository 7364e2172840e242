package main

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// queue is one message queue and the master serving it.
type queue struct {
	brokerName, addr string
	id               int
}

// resolveQueues returns the topic's writable (or readable) master queues,
// creating the topic with o.queues queues on every master first when the
// name server does not know it.
func resolveQueues(ctx context.Context, c *remoting.Client, o *options, write bool) ([]queue, error) {
	route, err := getRoute(ctx, c, o.namesrv, o.topic)
	if err != nil {
		return nil, err
	}
	if route == nil {
		if err := createTopic(ctx, c, o); err != nil {
			return nil, err
		}
		deadline := time.Now().Add(15 * time.Second)
		for route == nil && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
			if route, err = getRoute(ctx, c, o.namesrv, o.topic); err != nil {
				return nil, err
			}
		}
		if route == nil {
			return nil, fmt.Errorf("topic %s created but not routed", o.topic)
		}
	}
	var qs []queue
	for _, qd := range route.QueueDatas {
		addr := ""
		for _, bd := range route.BrokerDatas {
			if bd.BrokerName == qd.BrokerName {
				addr = bd.BrokerAddrs[0]
			}
		}
		n := qd.ReadQueueNums
		if write {
			n = qd.WriteQueueNums
		}
		for i := range int(n) {
			if addr != "" {
				qs = append(qs, queue{brokerName: qd.BrokerName, addr: addr, id: i})
			}
		}
	}
	if len(qs) == 0 {
		return nil, fmt.Errorf("topic %s has no queues on a master", o.topic)
	}
	return qs, nil
}

// getRoute returns nil, nil for TOPIC_NOT_EXIST.
func getRoute(ctx context.Context, c *remoting.Client, ns, topic string) (*body.TopicRouteData, error) {
	resp, err := invoke(ctx, c, ns, codec.NewRequest(code.GetRouteinfoByTopic, map[string]string{"topic": topic}, nil))
	if err != nil {
		return nil, err
	}
	switch resp.Code {
	case code.Success:
		return body.DecodeTopicRouteData(resp.Body)
	case code.TopicNotExist:
		return nil, nil
	}
	return nil, fmt.Errorf("route %s: code %d %s", topic, resp.Code, resp.Remark)
}

// createTopic sends UPDATE_AND_CREATE_TOPIC to every master of the cluster.
func createTopic(ctx context.Context, c *remoting.Client, o *options) error {
	resp, err := invoke(ctx, c, o.namesrv, codec.NewRequest(code.GetBrokerClusterInfo, nil, nil))
	if err != nil {
		return err
	}
	ci, err := body.DecodeClusterInfo(resp.Body)
	if err != nil {
		return fmt.Errorf("cluster info: %w", err)
	}
	created := 0
	for _, bd := range ci.BrokerAddrTable {
		addr := bd.BrokerAddrs[0]
		if addr == "" {
			continue
		}
		r, err := invoke(ctx, c, addr, createTopicRequest(o.topic, o.queues))
		if err != nil {
			return err
		}
		if r.Code != code.Success {
			return fmt.Errorf("create topic on %s: code %d %s", addr, r.Code, r.Remark)
		}
		created++
	}
	if created == 0 {
		return fmt.Errorf("no master broker registered")
	}
	fmt.Printf("created topic %s with %d queues on %d broker(s)\n", o.topic, o.queues, created)
	return nil
}

// createTopicRequest is the UPDATE_AND_CREATE_TOPIC mqadmin sends for a
// read-write topic of queues queues.
func createTopicRequest(topic string, queues int) *codec.RemotingCommand {
	n := strconv.Itoa(queues)
	return codec.NewRequest(code.UpdateAndCreateTopic, map[string]string{
		"topic": topic, "defaultTopic": "TBW102", "readQueueNums": n, "writeQueueNums": n,
		"perm": "6", "topicFilterType": "SINGLE_TAG", "topicSysFlag": "0", "order": "false",
	}, nil)
}

func invoke(ctx context.Context, c *remoting.Client, addr string, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return c.InvokeSync(ctx, addr, req)
}

// maxOffsets reads GET_MAX_OFFSET of every queue.
func maxOffsets(ctx context.Context, c *remoting.Client, topic string, qs []queue) ([]int64, error) {
	out := make([]int64, len(qs))
	for i, q := range qs {
		resp, err := invoke(ctx, c, q.addr, codec.NewRequest(code.GetMaxOffset, map[string]string{"topic": topic, "queueId": strconv.Itoa(q.id)}, nil))
		if err != nil {
			return nil, err
		}
		if out[i], err = strconv.ParseInt(resp.Ext("offset"), 10, 64); err != nil {
			return nil, fmt.Errorf("max offset of %s/%d: code %d %q", q.brokerName, q.id, resp.Code, resp.Remark)
		}
	}
	return out, nil
}
