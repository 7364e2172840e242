package broker

import "net"

// ServeLocal serves c, one end of an in-process connection (net.Pipe), on
// the broker's main remoting server exactly like an accepted plain TCP
// connection: same processors, pools and broker-to-client requests. The
// gRPC proxy's local mode (proxy.NewLocalBackend) is its user.
func (b *Broker) ServeLocal(c net.Conn) error { return b.server.ServeConn(c) }
