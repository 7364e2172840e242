package broker

import (
	"net"

	"github.com/rocketmq-go/rmq/broker/acl"
	"github.com/rocketmq-go/rmq/remoting"
)

// ServeLocal serves c, one end of an in-process connection (net.Pipe), on
// the broker's main remoting server exactly like an accepted plain TCP
// connection: same processors, pools and broker-to-client requests. The
// gRPC proxy's local mode (proxy.NewLocalBackend) is its user.
func (b *Broker) ServeLocal(c net.Conn) error { return b.server.ServeConn(c) }

// LocalConn returns an in-process channel to the broker's main remoting
// server that takes request commands without encoding them (the gRPC
// proxy's local-mode sends): same processors, pools, ACL hooks and metrics
// as a socket, peer reported as remoteAddr. It cannot carry
// broker-to-client requests.
func (b *Broker) LocalConn(remoteAddr string) *remoting.LocalConn {
	return b.server.NewLocalConn(remoteAddr)
}

// ACL is the broker's plain ACL (nil unless aclEnable=true): the gRPC
// proxy's local mode checks its calls against the same accounts.
func (b *Broker) ACL() *acl.Plain { return b.acl }
