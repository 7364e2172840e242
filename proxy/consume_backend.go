package proxy

import (
	"context"
	"sync"
	"time"

	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// brokerBackend is the part of the proxy's Backend the consume side uses;
// every Backend satisfies it.
type brokerBackend interface {
	Invoke(ctx context.Context, addr string, req *codec.RemotingCommand) (*codec.RemotingCommand, error)
	InvokeAsync(ctx context.Context, addr string, req *codec.RemotingCommand, cb func(*codec.RemotingCommand, error)) error
	TopicRoute(ctx context.Context, topic string) (*body.TopicRouteData, error)
	MasterBrokers(ctx context.Context) (map[string]string, error)
	SubscriptionGroup(ctx context.Context, group string) *body.SubscriptionGroupConfig
}

// consumeAdapter reaches brokers by name: receipt handles and message queues
// name brokers, the Backend wants addresses. Masters seen in routes are
// remembered; an unknown name asks the Backend for every master.
type consumeAdapter struct {
	be brokerBackend
	// route looks a topic's route up (the service's cache; be.TopicRoute
	// by default).
	route func(ctx context.Context, topic string) (*body.TopicRouteData, error)

	mu      sync.Mutex        // guards masters
	masters map[string]string // broker name → master address
}

func newConsumeAdapter(be brokerBackend) *consumeAdapter {
	return &consumeAdapter{be: be, route: be.TopicRoute, masters: map[string]string{}}
}

// Bounds of a broker call made for a gRPC request.
const (
	// brokerCallSlack is how long a broker call may outlive its caller's
	// deadline before it is given up.
	brokerCallSlack = 3 * time.Second
	// brokerCallDefaultTimeout bounds a call whose caller has no deadline.
	brokerCallDefaultTimeout = 30 * time.Second
)

func (a *consumeAdapter) callBroker(ctx context.Context, brokerName string, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	return a.callBrokerLate(ctx, brokerName, req, nil)
}

// callBrokerLate sends req asynchronously and waits for the answer or the
// caller's end. A gRPC client that hangs up cancels ctx; that must not cancel
// the broker call, because a cancelled synchronous call counts as a timeout
// and closes the connection every client of this proxy shares. So the call
// runs on a context detached from the caller's cancellation, bounded by the
// caller's deadline plus brokerCallSlack; an answer that comes after the
// caller left goes to late (if not nil), from the remoting callback.
func (a *consumeAdapter) callBrokerLate(ctx context.Context, brokerName string, req *codec.RemotingCommand,
	late func(*codec.RemotingCommand)) (*codec.RemotingCommand, error) {
	addr, err := a.masterOf(ctx, brokerName)
	if err != nil {
		return nil, err
	}
	dl, ok := ctx.Deadline()
	if !ok {
		dl = time.Now().Add(brokerCallDefaultTimeout)
	}
	cctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), dl.Add(brokerCallSlack))
	type answer struct {
		resp *codec.RemotingCommand
		err  error
	}
	var (
		mu        sync.Mutex // guards gone and delivered: who takes the answer
		gone      bool       // the caller stopped waiting: late takes it
		delivered bool       // the answer is in result for the caller
		result    = make(chan answer, 1)
	)
	cb := func(resp *codec.RemotingCommand, err error) {
		cancel()
		mu.Lock()
		if gone {
			mu.Unlock()
			if late != nil && err == nil {
				late(resp)
			}
			return
		}
		delivered = true
		mu.Unlock()
		result <- answer{resp, err}
	}
	if err := a.be.InvokeAsync(cctx, addr, req, cb); err != nil {
		cancel()
		return nil, err
	}
	select {
	case r := <-result:
		return r.resp, r.err
	case <-ctx.Done():
		mu.Lock()
		if delivered { // the answer raced the caller's end: still the caller's
			mu.Unlock()
			r := <-result
			return r.resp, r.err
		}
		gone = true
		mu.Unlock()
		return nil, ctx.Err()
	}
}

func (a *consumeAdapter) masterOf(ctx context.Context, name string) (string, error) {
	a.mu.Lock()
	addr := a.masters[name]
	a.mu.Unlock()
	if addr != "" {
		return addr, nil
	}
	all, err := a.be.MasterBrokers(ctx)
	if err != nil {
		return "", err
	}
	a.mu.Lock()
	for n, ad := range all {
		a.masters[n] = ad
	}
	a.mu.Unlock()
	if addr = all[name]; addr == "" {
		return "", errStatus(apiv2.Code_NOT_FOUND, "broker "+name+" has no master")
	}
	return addr, nil
}

func (a *consumeAdapter) topicRoute(ctx context.Context, topic string) (*body.TopicRouteData, error) {
	rd, err := a.route(ctx, topic)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	for _, bd := range rd.BrokerDatas {
		if m := bd.BrokerAddrs[0]; m != "" {
			a.masters[bd.BrokerName] = m
		}
	}
	a.mu.Unlock()
	return rd, nil
}

func (a *consumeAdapter) groupOrderly(ctx context.Context, group string) bool {
	cfg := a.be.SubscriptionGroup(ctx, group)
	return cfg != nil && cfg.ConsumeMessageOrderly
}

// groupMaxAttempts is the delivery attempts of group before its messages go
// to the DLQ: retryMaxTimes+1, as 5.x's settings say (0: unknown group).
func (a *consumeAdapter) groupMaxAttempts(ctx context.Context, group string) int32 {
	if cfg := a.be.SubscriptionGroup(ctx, group); cfg != nil {
		return cfg.RetryMaxTimes + 1
	}
	return 0
}
