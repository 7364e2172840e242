package proxy

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"sync"

	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/rocketmq-go/rmq/broker/acl"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// gRPC metadata of 5.x's authentication (AuthenticationHeader).
const (
	MetaAuthorization = "authorization"
	MetaDateTime      = "x-mq-date-time"
	MetaSessionToken  = "x-mq-session-token"
)

// ACL is what the proxy checks gRPC calls against: the plain ACL accounts
// (*acl.Plain: the local broker's own, or one loaded from the proxy's
// rocketmqHome in cluster mode).
type ACL interface {
	ValidateSigned(*acl.SignedRequest) error
	SecretKey(accessKey string) (string, bool)
}

// SetACL makes the server authenticate every call against a (5.x's
// enableACL) and talk to brokers as the caller's account. Call before
// Start. Local mode on an aclEnable=true broker sets it by itself.
func (s *Server) SetACL(a ACL) { s.acl = a }

// credentials is the account a call was admitted as; broker requests made
// for the call are signed with it.
type credentials struct{ accessKey, secretKey string }

type credKey struct{}

func withCredentials(ctx context.Context, c *credentials) context.Context {
	return context.WithValue(ctx, credKey{}, c)
}

// signFor signs req as the account ctx was admitted as (the remoting ACL
// signature the broker checks); no account: req is left alone.
func signFor(ctx context.Context, req *codec.RemotingCommand) {
	c, _ := ctx.Value(credKey{}).(*credentials)
	if c == nil {
		return
	}
	if req.ExtFields == nil {
		req.ExtFields = map[string]string{}
	}
	delete(req.ExtFields, acl.KeySignature)
	acl.SignRequest(req.ExtFields, req.Body, c.accessKey, c.secretKey)
}

// remember keeps the account ctx was admitted as on the caller's session,
// for the broker calls the proxy makes for that client on its own (broker
// heartbeats, renewals).
func (s *Server) remember(ctx context.Context) {
	c, _ := ctx.Value(credKey{}).(*credentials)
	if c == nil || s.svc == nil {
		return
	}
	md, _ := metadata.FromIncomingContext(ctx)
	if sess := s.svc.clients.Get(first(md, MetaClientID)); sess != nil {
		sess.creds.Store(c)
	}
}

// asClient is ctx signing as the account clientID was last admitted as
// (unchanged when there is none).
func (svc *service) asClient(ctx context.Context, clientID string) context.Context {
	if sess := svc.clients.Get(clientID); sess != nil {
		if c := sess.creds.Load(); c != nil {
			return withCredentials(ctx, c)
		}
	}
	return ctx
}

// errAuth is what a refused call gets: 5.x's AuthenticationInterceptor
// answers PERMISSION_DENIED with no description.
var errAuth = status.Error(codes.PermissionDenied, "")

// authenticate checks one request message of ctx's call (5.x's
// AuthenticationInterceptor + PlainAccessResource.parse for gRPC) and
// returns ctx carrying the admitted account.
func (s *Server) authenticate(ctx context.Context, msg any) (context.Context, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	sr := &acl.SignedRequest{Content: []byte(first(md, MetaDateTime))}
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		sr.Addr = p.Addr.String()
	}
	var err error
	if sr.AccessKey, sr.Signature, err = parseAuthorization(first(md, MetaAuthorization)); err == nil {
		err = needs(sr, msg)
	}
	if err == nil {
		err = s.acl.ValidateSigned(sr)
	}
	if err != nil {
		if ce := s.lg.Check(zap.DebugLevel, "grpc call refused by acl"); ce != nil {
			ce.Write(zap.String("remoteAddr", sr.Addr), zap.String("accessKey", sr.AccessKey), zap.Error(err))
		}
		return ctx, errAuth
	}
	if sk, ok := s.acl.SecretKey(sr.AccessKey); ok {
		ctx = withCredentials(ctx, &credentials{accessKey: sr.AccessKey, secretKey: sk})
	}
	return ctx, nil
}

var errBadAuthorization = errors.New("proxy: authorization header is incorrect")

// parseAuthorization reads "MQv2-HMAC-SHA1 Credential=<ak>,
// SignedHeaders=x-mq-date-time, Signature=<hex>" and returns the access
// key and the signature in base64 (what the ACL compares).
func parseAuthorization(h string) (accessKey, signature string, err error) {
	_, rest, ok := strings.Cut(h, " ")
	if !ok {
		return "", "", errBadAuthorization
	}
	for _, kv := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return "", "", errBadAuthorization
		}
		switch k {
		case "Credential":
			accessKey, _, _ = strings.Cut(v, "/")
		case "Signature":
			raw, err := hex.DecodeString(v)
			if err != nil {
				return "", "", errBadAuthorization
			}
			signature = base64.StdEncoding.EncodeToString(raw)
		}
	}
	return accessKey, signature, nil
}

// resName is the name a permission is checked on: the resource's bare name,
// the one the call then uses. Namespaces are not applied (docs/grpc.md), so
// wrapping the checked name in one (5.x's NamespaceUtil.wrapNamespace) would
// check a different resource than the one reached.
func resName(r *apiv2.Resource) string {
	return r.GetName()
}

// needs lists the topics and groups msg's method needs, as 5.x's
// PlainAccessResource.parse does for gRPC messages.
func needs(sr *acl.SignedRequest, msg any) error {
	switch m := msg.(type) {
	case *apiv2.HeartbeatRequest:
		if t := m.GetClientType(); t == apiv2.ClientType_PUSH_CONSUMER || t == apiv2.ClientType_SIMPLE_CONSUMER {
			if m.Group == nil {
				return errors.New("proxy: consumer heartbeat doesn't have group")
			}
			sr.NeedGroup(resName(m.GetGroup()), acl.Sub)
		}
	case *apiv2.SendMessageRequest:
		return needsSend(sr, m)
	case *apiv2.ReceiveMessageRequest:
		sr.NeedGroup(resName(m.GetGroup()), acl.Sub)
		sr.Need(resName(m.GetMessageQueue().GetTopic()), acl.Sub)
	case *apiv2.AckMessageRequest, *apiv2.ForwardMessageToDeadLetterQueueRequest,
		*apiv2.ChangeInvisibleDurationRequest, *apiv2.QueryAssignmentRequest:
		g := m.(groupTopic)
		sr.NeedGroup(resName(g.GetGroup()), acl.Sub)
		sr.Need(resName(g.GetTopic()), acl.Sub)
	case *apiv2.EndTransactionRequest:
		sr.Need(resName(m.GetTopic()), acl.Pub)
	case *apiv2.NotifyClientTerminationRequest:
		sr.NeedGroup(resName(m.GetGroup()), acl.Sub)
	case *apiv2.QueryRouteRequest:
		sr.Need(resName(m.GetTopic()), acl.Any)
	case *apiv2.TelemetryCommand:
		return needsSettings(sr, m.GetSettings())
	}
	return nil
}

// groupTopic is a request that names its group and topic.
type groupTopic interface {
	GetGroup() *apiv2.Resource
	GetTopic() *apiv2.Resource
}

func needsSend(sr *acl.SignedRequest, m *apiv2.SendMessageRequest) error {
	msgs := m.GetMessages()
	if len(msgs) == 0 {
		return errors.New("proxy: SendMessageRequest, messageCount is zero")
	}
	topic := resName(msgs[0].GetTopic())
	for _, x := range msgs[1:] {
		if resName(x.GetTopic()) != topic {
			return errors.New("proxy: SendMessageRequest, messages' topic is not consistent")
		}
	}
	sr.Need(topic, acl.Pub)
	return nil
}

// needsSettings: a settings command needs PUB on its publishing topics and
// SUB on its group and subscribed topics; other commands need nothing.
func needsSettings(sr *acl.SignedRequest, st *apiv2.Settings) error {
	if st == nil {
		return nil
	}
	pub, sub := st.GetPublishing(), st.GetSubscription()
	if pub == nil && sub == nil {
		return errors.New("proxy: settings command doesn't have publishing or subscription")
	}
	for _, t := range pub.GetTopics() {
		sr.Need(resName(t), acl.Pub)
	}
	if sub != nil {
		sr.NeedGroup(resName(sub.GetGroup()), acl.Sub)
		for _, e := range sub.GetSubscriptions() {
			sr.Need(resName(e.GetTopic()), acl.Sub)
		}
	}
	return nil
}

// authUnary authenticates each unary call before its handler runs.
func (s *Server) authUnary() grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		if s.acl == nil {
			return h(ctx, req)
		}
		ctx, err := s.authenticate(ctx, req)
		if err != nil {
			return nil, err
		}
		resp, err := h(ctx, req)
		s.remember(ctx) // after the handler: the call may have made the session
		return resp, err
	}
}

// authStream authenticates every message a client streams (5.x checks
// each onMessage); the stream's context then carries the admitted account
// (ReceiveMessage's broker calls are signed with it).
func (s *Server) authStream() grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
		if s.acl == nil {
			return h(srv, ss)
		}
		as := &authStream{ServerStream: ss, s: s}
		err := h(srv, as)
		as.mu.Lock()
		defer as.mu.Unlock()
		if as.denied {
			return errAuth // the handler may take a failed receive for the client's end
		}
		return err
	}
}

type authStream struct {
	grpc.ServerStream
	s *Server

	mu     sync.Mutex      // guards ctx and denied: telemetry reads ctx from other goroutines
	ctx    context.Context // nil until a message is admitted
	denied bool            // a message was refused
}

func (a *authStream) Context() context.Context {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ctx == nil {
		return a.ServerStream.Context()
	}
	return a.ctx
}

func (a *authStream) RecvMsg(m any) error {
	if err := a.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	ctx, err := a.s.authenticate(a.ServerStream.Context(), m)
	if err != nil {
		a.mu.Lock()
		a.denied = true
		a.mu.Unlock()
		return err
	}
	a.mu.Lock()
	a.ctx = ctx
	a.mu.Unlock()
	a.s.remember(ctx)
	return nil
}
