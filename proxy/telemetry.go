package proxy

import (
	"context"
	"time"

	"go.uber.org/zap"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"

	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
	"github.com/rocketmq-go/rmq/remoting/body"
)

// defaultCustomizedBackoff is 5.x's CustomizedRetryPolicy default: the
// delay levels 3 to 18 (1s 5s 10s 30s 1m ... 2h).
var defaultCustomizedBackoff = []time.Duration{
	time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 3 * time.Minute, 4 * time.Minute, 5 * time.Minute, 6 * time.Minute,
	7 * time.Minute, 8 * time.Minute, 9 * time.Minute, 10 * time.Minute, 20 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour,
}

// Telemetry is the client's session stream: the client sends its Settings
// (answered with the effective ones) and results of commands; the proxy
// pushes commands (transaction checks, stack trace and verify requests).
// As 5.x, a bad command ends the stream with INVALID_ARGUMENT (client
// errors) or INTERNAL.
func (svc *service) Telemetry(stream apiv2.MessagingService_TelemetryServer) error {
	ci := callInfoOf(stream.Context())
	if err := ci.requireClientID(); err != nil {
		return status.Error(codes.InvalidArgument, err.(*Error).Message)
	}
	c := svc.clients.touch(ci)
	q := make(chan *apiv2.TelemetryCommand, telemetryQueue)
	c.mu.Lock()
	c.stream = q
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		if c.stream == q {
			c.stream = nil
			c.lastSeen = time.Now()
		}
		c.mu.Unlock()
	}()

	in := make(chan *apiv2.TelemetryCommand)
	errc := make(chan error, 1)
	go func() { // ends when the stream does (the handler's return cancels it)
		for {
			cmd, err := stream.Recv()
			if err != nil {
				errc <- err
				return
			}
			select {
			case in <- cmd:
			case <-stream.Context().Done():
				return
			}
		}
	}()
	for {
		select {
		case <-errc:
			return nil // client closed or went away
		case <-svc.srv.stopCh:
			return status.Error(codes.Unavailable, "proxy is shutting down")
		case cmd := <-q:
			if err := stream.Send(cmd); err != nil {
				return err
			}
		case cmd := <-in:
			reply, err := svc.onTelemetry(stream.Context(), ci, c, cmd)
			if err != nil {
				return err
			}
			if reply != nil {
				if err := stream.Send(reply); err != nil {
					return err
				}
			}
		}
	}
}

// onTelemetry handles one command from the client; reply may be nil.
func (svc *service) onTelemetry(ctx context.Context, ci callInfo, c *clientSession, cmd *apiv2.TelemetryCommand) (*apiv2.TelemetryCommand, error) {
	switch x := cmd.GetCommand().(type) {
	case *apiv2.TelemetryCommand_Settings:
		st, err := svc.applySettings(ctx, c, x.Settings)
		if err != nil {
			return nil, telemetryError(err)
		}
		return &apiv2.TelemetryCommand{Status: okStatus(), Command: &apiv2.TelemetryCommand_Settings{Settings: st}}, nil
	case *apiv2.TelemetryCommand_ThreadStackTrace:
		svc.waiters.deliver(x.ThreadStackTrace.GetNonce(), cmd)
	case *apiv2.TelemetryCommand_VerifyMessageResult:
		svc.waiters.deliver(x.VerifyMessageResult.GetNonce(), cmd)
	default:
		svc.lg.Debug("ignored telemetry command", zap.String("clientId", ci.ClientID))
	}
	return nil, nil
}

// telemetryError is 5.x's processTelemetryException.
func telemetryError(err error) error {
	if s, ok := status.FromError(err); ok && s.Code() != codes.Unknown {
		return err // already a gRPC status
	}
	st := StatusOf(err)
	msg := "process client telemetryCommand failed. " + st.GetMessage()
	if c := st.GetCode(); c >= apiv2.Code_BAD_REQUEST && c < apiv2.Code_INTERNAL_ERROR {
		return status.Error(codes.InvalidArgument, msg)
	}
	return status.Error(codes.Internal, msg)
}

// applySettings validates and stores the client's settings and returns the
// effective ones (5.x's GrpcClientSettingsManager).
func (svc *service) applySettings(ctx context.Context, c *clientSession, st *apiv2.Settings) (*apiv2.Settings, error) {
	switch ps := st.GetPubSub().(type) {
	case *apiv2.Settings_Publishing:
		for _, t := range ps.Publishing.GetTopics() {
			if err := validateTopic(t); err != nil {
				return nil, err
			}
		}
	case *apiv2.Settings_Subscription:
		if err := validateConsumerGroup(ps.Subscription.GetGroup()); err != nil {
			return nil, err
		}
		for _, e := range ps.Subscription.GetSubscriptions() {
			if _, err := buildSubscription(e.GetTopic().GetName(), e.GetExpression()); err != nil {
				return nil, err
			}
		}
	default:
		return nil, status.Error(codes.InvalidArgument, "there is no publishing or subscription data in settings")
	}
	raw := proto.Clone(st).(*apiv2.Settings)
	c.mu.Lock()
	c.settings = raw
	c.mu.Unlock()
	svc.clients.notify()
	return svc.effectiveSettings(ctx, raw), nil
}

// effectiveSettings merges the server's values into a client's settings:
// producer backoff and body limit, consumer batch/long-polling/retry
// policy from the group's config, metrics off.
func (svc *service) effectiveSettings(ctx context.Context, raw *apiv2.Settings) *apiv2.Settings {
	st := proto.Clone(raw).(*apiv2.Settings)
	cfg := svc.cfg
	switch ps := st.GetPubSub().(type) {
	case *apiv2.Settings_Publishing:
		st.BackoffPolicy = &apiv2.RetryPolicy{
			MaxAttempts: int32(cfg.GRPCClientProducerMaxAttempts),
			Strategy: &apiv2.RetryPolicy_ExponentialBackoff{ExponentialBackoff: &apiv2.ExponentialBackoff{
				Initial:    durationpb.New(time.Duration(cfg.GRPCClientProducerBackoffInitialMillis) * time.Millisecond),
				Max:        durationpb.New(time.Duration(cfg.GRPCClientProducerBackoffMaxMillis) * time.Millisecond),
				Multiplier: float32(cfg.GRPCClientProducerBackoffMultiplier),
			}},
		}
		ps.Publishing.ValidateMessageType = cfg.EnableTopicMessageTypeCheck
		ps.Publishing.MaxBodySize = int32(cfg.MaxMessageSize)
	case *apiv2.Settings_Subscription:
		group := ps.Subscription.GetGroup().GetName()
		gc := body.NewSubscriptionGroupConfig(group)
		lctx, cancel := context.WithTimeout(ctx, brokerCallTimeout)
		if found := svc.be.SubscriptionGroup(lctx, group); found != nil {
			gc = *found
		}
		cancel()
		batch := int32(cfg.GRPCClientConsumerLongPollingBatchSize)
		fifo := gc.ConsumeMessageOrderly // 5.x field, kept by remoting/body
		ps.Subscription.ReceiveBatchSize = &batch
		ps.Subscription.LongPollingTimeout = durationpb.New(time.Duration(cfg.GRPCClientConsumerMaxLongPollingTimeoutMillis) * time.Millisecond)
		ps.Subscription.Fifo = &fifo
		next := make([]*durationpb.Duration, len(defaultCustomizedBackoff))
		for i, d := range defaultCustomizedBackoff {
			next[i] = durationpb.New(d)
		}
		st.BackoffPolicy = &apiv2.RetryPolicy{
			MaxAttempts: gc.RetryMaxTimes + 1,
			Strategy:    &apiv2.RetryPolicy_CustomizedBackoff{CustomizedBackoff: &apiv2.CustomizedBackoff{Next: next}},
		}
	}
	st.Metric = &apiv2.Metric{On: false}
	return st
}
