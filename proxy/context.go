package proxy

import (
	"context"
	"net"
	"strings"

	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"

	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
)

// gRPC metadata keys RocketMQ 5 clients send with every call.
const (
	MetaClientID      = "x-mq-client-id"
	MetaLanguage      = "x-mq-language"
	MetaClientVersion = "x-mq-client-version"
	MetaProtocol      = "x-mq-protocol"
	MetaNamespace     = "x-mq-namespace"
	MetaRequestID     = "x-mq-request-id"
)

// callInfo is what the proxy knows about the caller of one RPC (5.x's
// ProxyContext).
type callInfo struct {
	ClientID      string
	Language      string
	ClientVersion string
	Namespace     string
	RemoteAddr    string // "ip:port" of the gRPC peer
	LocalAddr     string
}

func callInfoOf(ctx context.Context) callInfo {
	var ci callInfo
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		ci.ClientID = first(md, MetaClientID)
		ci.Language = first(md, MetaLanguage)
		ci.ClientVersion = first(md, MetaClientVersion)
		ci.Namespace = first(md, MetaNamespace)
	}
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		ci.RemoteAddr = p.Addr.String()
		if p.LocalAddr != nil {
			ci.LocalAddr = p.LocalAddr.String()
		}
	}
	return ci
}

func first(md metadata.MD, key string) string {
	if v := md.Get(key); len(v) > 0 {
		return v[0]
	}
	return ""
}

// requireClientID is 5.x's validateContext.
func (ci callInfo) requireClientID() error {
	if strings.TrimSpace(ci.ClientID) == "" {
		return errorf(apiv2.Code_CLIENT_ID_REQUIRED, "client id cannot be empty")
	}
	return nil
}

// remoteHost is the caller's IP without the port.
func (ci callInfo) remoteHost() string {
	h, _, err := net.SplitHostPort(ci.RemoteAddr)
	if err != nil {
		return ci.RemoteAddr
	}
	return h
}

// remotingLanguage is the remoting LanguageCode name of the client's
// language (5.x maps the gRPC Language enum name, e.g. NODE_JS → NODE_JS is
// not a remoting code, so unknown names become OTHER).
func (ci callInfo) remotingLanguage() string {
	switch strings.ToUpper(ci.Language) {
	case "JAVA", "CPP", "DOTNET", "PYTHON", "DELPHI", "ERLANG", "RUBY", "HTTP", "GO", "PHP", "OMS", "RUST", "NODE_JS":
		return strings.ToUpper(ci.Language)
	case "GOLANG":
		return "GO"
	case "DOT_NET":
		return "DOTNET"
	default:
		return "OTHER"
	}
}
