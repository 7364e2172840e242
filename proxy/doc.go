// Package proxy is the gRPC front end for RocketMQ 5 clients, like Apache
// RocketMQ 5.x's proxy: it serves apache.rocketmq.v2.MessagingService on
// its own HTTP/2 listener and turns each call into remoting requests to
// brokers.
//
// Two Backend implementations carry those requests:
//
//   - local mode (NewLocalBackend): the proxy lives in the broker process
//     and talks to it through an in-process pipe served by the broker's own
//     remoting server (same processors, pools and broker-to-client calls);
//     sends skip the pipe through remoting.LocalConn;
//   - cluster mode (NewClusterBackend): a remoting client to every broker,
//     routes from the name server.
//
// Usage:
//
//	be, _ := proxy.NewClusterBackend([]string{"127.0.0.1:9876"}, nil, lg)
//	srv, _ := proxy.New(proxy.NewConfig(), be, lg)
//	_ = srv.Start()          // listens on cfg.GRPCServerPort (0 = ephemeral)
//	defer srv.Shutdown(ctx)
//
// Invariants: a response status always carries an apache.rocketmq.v2.Code
// chosen as the 5.x proxy would; client input never panics the server; no
// lock is held across a network call.
//
// File map: server.go (lifecycle, TLS), backend.go (brokers), route.go,
// send.go, transaction.go, session.go (Heartbeat, termination, client
// registry, broker heartbeats), telemetry.go (settings, pushed commands),
// auth.go (ACL), and the consume side: consume*.go (services, change
// invisible duration), receive.go, ack.go, dlq.go, assignment.go,
// receipt.go, popck.go, renew.go, telemetry_consumer.go.
package proxy
