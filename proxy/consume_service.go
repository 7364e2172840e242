package proxy

// The consume-side methods of MessagingService on *service, and their
// wiring (initConsume / startConsume, called from service.go).

import (
	"context"
	"time"

	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
	"github.com/rocketmq-go/rmq/remoting/code"
)

// defaultRequestTimeout is the SDKs' request timeout when a client has not
// told its own.
const defaultRequestTimeout = 3 * time.Second

// consumeConfigOf takes the consume settings from the proxy's Config.
func consumeConfigOf(cfg *Config) ConsumeConfig {
	c := NewConsumeConfig()
	c.EnableProxyAutoRenew = cfg.EnableProxyAutoRenew
	c.DefaultInvisibleTimeMills = cfg.DefaultInvisibleTimeMills
	c.RenewAheadTimeMillis = cfg.RenewAheadTimeMillis
	c.RenewMaxTimeMillis = cfg.RenewMaxTimeMillis
	c.RenewSchedulePeriodMillis = cfg.RenewSchedulePeriodMillis
	c.MinLongPollingTimeoutMillis = cfg.GRPCClientConsumerMinLongPollingTimeoutMillis
	c.MaxLongPollingTimeoutMillis = cfg.GRPCClientConsumerMaxLongPollingTimeoutMillis
	c.MinInvisibleTimeMillsForRecv = cfg.MinInvisibleTimeMillsForRecv
	c.MaxInvisibleTimeMills = cfg.MaxInvisibleTimeMills
	return c
}

// initConsume builds the consume side and registers the broker-to-client
// requests it answers for gRPC consumers.
func (svc *service) initConsume() {
	svc.consumeAdapter = newConsumeAdapter(svc.be)
	svc.consumeAdapter.route = svc.routes.get
	svc.cons = newConsumer(svc.lg.Named("consume"), consumeConfigOf(svc.cfg), svc.consumeAdapter)
	svc.cons.spawn = svc.srv.goFunc
	svc.cons.renew = newRenewer(svc.cons, func(id string) bool { return svc.clients.Get(id) != nil })
	svc.be.Handle(code.GetConsumerRunningInfo, svc.onGetConsumerRunningInfo)
	svc.be.Handle(code.ConsumeMessageDirectly, svc.onConsumeMessageDirectly)
}

// startConsume runs the receipt handle renewal until the server stops.
func (svc *service) startConsume() {
	period := time.Duration(svc.cons.cfg.RenewSchedulePeriodMillis) * time.Millisecond
	svc.srv.goFunc(func() { svc.cons.renew.run(svc.srv.stopCh, period) })
}

// consumerSettingsOf gathers what a receive needs: FIFO and max attempts
// from the group's config (what 5.x puts in the consumer's settings), the
// request timeout the client announced.
func (svc *service) consumerSettingsOf(ctx context.Context, ci callInfo, group string) consumerSettings {
	set := consumerSettings{clientID: ci.ClientID, requestTimeout: defaultRequestTimeout}
	if c := svc.clients.Get(ci.ClientID); c != nil {
		if d := c.Settings().GetRequestTimeout(); d != nil && d.AsDuration() > 0 {
			set.requestTimeout = d.AsDuration()
		}
	}
	lctx, cancel := context.WithTimeout(ctx, brokerCallTimeout)
	defer cancel()
	set.fifo = svc.consumeAdapter.groupOrderly(lctx, group)
	set.maxAttempts = svc.consumeAdapter.groupMaxAttempts(lctx, group)
	return set
}

// QueryAssignment is 5.x's RouteActivity.queryAssignment.
func (svc *service) QueryAssignment(ctx context.Context, req *apiv2.QueryAssignmentRequest) (*apiv2.QueryAssignmentResponse, error) {
	if err := callInfoOf(ctx).requireClientID(); err != nil {
		return &apiv2.QueryAssignmentResponse{Status: StatusOf(err)}, nil
	}
	return svc.cons.queryAssignment(ctx, req, svc.endpointsFor(req.GetEndpoints())), nil
}

// ReceiveMessage is 5.x's ReceiveMessageActivity.
func (svc *service) ReceiveMessage(req *apiv2.ReceiveMessageRequest, stream apiv2.MessagingService_ReceiveMessageServer) error {
	ctx := stream.Context()
	ci := callInfoOf(ctx)
	if err := ci.requireClientID(); err != nil {
		if err := stream.Send(&apiv2.ReceiveMessageResponse{Content: &apiv2.ReceiveMessageResponse_Status{Status: StatusOf(err)}}); err != nil {
			return err
		}
		return nil
	}
	svc.clients.touch(ci)
	set := svc.consumerSettingsOf(ctx, ci, req.GetGroup().GetName())
	return svc.cons.receive(ctx, req, set, ci.ClientVersion, stream.Send)
}

// AckMessage is 5.x's AckMessageActivity (one ACK_MESSAGE per entry).
func (svc *service) AckMessage(ctx context.Context, req *apiv2.AckMessageRequest) (*apiv2.AckMessageResponse, error) {
	ci := callInfoOf(ctx)
	if err := ci.requireClientID(); err != nil {
		return &apiv2.AckMessageResponse{Status: StatusOf(err)}, nil
	}
	return svc.cons.ackMessage(ctx, ci.ClientID, req), nil
}

// ChangeInvisibleDuration is 5.x's ChangeInvisibleDurationActivity.
func (svc *service) ChangeInvisibleDuration(ctx context.Context, req *apiv2.ChangeInvisibleDurationRequest) (*apiv2.ChangeInvisibleDurationResponse, error) {
	ci := callInfoOf(ctx)
	if err := ci.requireClientID(); err != nil {
		return &apiv2.ChangeInvisibleDurationResponse{Status: StatusOf(err)}, nil
	}
	return svc.cons.changeInvisibleDuration(ctx, ci.ClientID, req), nil
}

// ForwardMessageToDeadLetterQueue is 5.x's ForwardMessageToDLQActivity.
func (svc *service) ForwardMessageToDeadLetterQueue(ctx context.Context, req *apiv2.ForwardMessageToDeadLetterQueueRequest) (*apiv2.ForwardMessageToDeadLetterQueueResponse, error) {
	ci := callInfoOf(ctx)
	if err := ci.requireClientID(); err != nil {
		return &apiv2.ForwardMessageToDeadLetterQueueResponse{Status: StatusOf(err)}, nil
	}
	return svc.cons.forwardToDLQ(ctx, ci.ClientID, req), nil
}
