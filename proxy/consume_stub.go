package proxy

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
)

// The consume side of MessagingService. This file is a placeholder owned by
// the consume work (grpcc), which replaces it with the real methods.

func (s *service) QueryAssignment(context.Context, *apiv2.QueryAssignmentRequest) (*apiv2.QueryAssignmentResponse, error) {
	return nil, status.Error(codes.Unimplemented, "QueryAssignment is not implemented yet")
}

func (s *service) ReceiveMessage(*apiv2.ReceiveMessageRequest, apiv2.MessagingService_ReceiveMessageServer) error {
	return status.Error(codes.Unimplemented, "ReceiveMessage is not implemented yet")
}

func (s *service) AckMessage(context.Context, *apiv2.AckMessageRequest) (*apiv2.AckMessageResponse, error) {
	return nil, status.Error(codes.Unimplemented, "AckMessage is not implemented yet")
}

func (s *service) ChangeInvisibleDuration(context.Context, *apiv2.ChangeInvisibleDurationRequest) (*apiv2.ChangeInvisibleDurationResponse, error) {
	return nil, status.Error(codes.Unimplemented, "ChangeInvisibleDuration is not implemented yet")
}

func (s *service) ForwardMessageToDeadLetterQueue(context.Context, *apiv2.ForwardMessageToDeadLetterQueueRequest) (*apiv2.ForwardMessageToDeadLetterQueueResponse, error) {
	return nil, status.Error(codes.Unimplemented, "ForwardMessageToDeadLetterQueue is not implemented yet")
}
