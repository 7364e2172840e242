package proxy

// QueryAssignment: which queues a push consumer should receive from (5.x
// RouteActivity.queryAssignment). Every readable broker is one assignment
// with queue id -1 (the broker pops across its queues); a group that
// consumes orderly gets one assignment per read queue instead.

import (
	"context"

	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
)

// permissionOf maps PermName bits to the v2 Permission.
func permissionOf(perm int32) apiv2.Permission {
	r, w := perm&permRead != 0, perm&permWrite != 0
	switch {
	case r && w:
		return apiv2.Permission_READ_WRITE
	case r:
		return apiv2.Permission_READ
	case w:
		return apiv2.Permission_WRITE
	}
	return apiv2.Permission_NONE
}

// queryAssignment serves QueryAssignment; endpoints are the proxy's own,
// which the client reaches every broker through.
func (c *consumer) queryAssignment(ctx context.Context, req *apiv2.QueryAssignmentRequest, endpoints *apiv2.Endpoints) *apiv2.QueryAssignmentResponse {
	topic, group := req.GetTopic().GetName(), req.GetGroup().GetName()
	if err := validateTopicAndGroup(topic, group); err != nil {
		return &apiv2.QueryAssignmentResponse{Status: statusOf(err)}
	}
	route, err := c.backend.topicRoute(ctx, topic)
	if err != nil {
		return &apiv2.QueryAssignmentResponse{Status: statusOf(err)}
	}
	fifo := c.backend.groupOrderly(ctx, group)
	var out []*apiv2.Assignment
	for _, qd := range route.QueueDatas {
		if qd.Perm&permRead == 0 || qd.ReadQueueNums <= 0 || !hasMaster(route, qd.BrokerName) {
			continue
		}
		broker := &apiv2.Broker{Name: qd.BrokerName, Id: 0, Endpoints: endpoints}
		mq := func(id int32) *apiv2.Assignment {
			return &apiv2.Assignment{MessageQueue: &apiv2.MessageQueue{Topic: req.GetTopic(), Id: id,
				Permission: permissionOf(qd.Perm), Broker: broker}}
		}
		if !fifo {
			out = append(out, mq(-1))
			continue
		}
		for i := range qd.ReadQueueNums {
			out = append(out, mq(i))
		}
	}
	if len(out) == 0 {
		return &apiv2.QueryAssignmentResponse{Status: &apiv2.Status{Code: apiv2.Code_FORBIDDEN, Message: "no readable queue"}}
	}
	return &apiv2.QueryAssignmentResponse{Status: okStatus(), Assignments: out}
}
