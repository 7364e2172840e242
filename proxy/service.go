package proxy

import (
	"go.uber.org/zap"

	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
	"github.com/rocketmq-go/rmq/remoting/code"
)

// service implements apiv2.MessagingServiceServer. Methods the proxy does
// not serve (pull, offsets, recall, lite topics) answer gRPC Unimplemented
// through the embedded type.
type service struct {
	apiv2.UnimplementedMessagingServiceServer

	srv     *Server
	cfg     *Config
	be      Backend
	lg      *zap.Logger
	clients *registry
	txns    *txnTable
	waiters *nonceWaiters
	hb      *brokerHeartbeat
	routes  *routeCache

	cons           *consumer       // consume side (consume_service.go)
	consumeAdapter *consumeAdapter // broker names → addresses for it
}

func newService(s *Server) *service {
	svc := &service{
		srv:     s,
		cfg:     s.cfg,
		be:      s.be,
		lg:      s.lg,
		clients: newRegistry(),
		txns:    newTxnTable(),
		waiters: newNonceWaiters(),
		routes:  newRouteCache(s.be, routeTTL),
	}
	svc.hb = newBrokerHeartbeat(svc)
	s.be.Handle(code.CheckTransactionState, svc.onCheckTransactionState)
	svc.initConsume()
	return svc
}

// start launches the background loops (called by Server.Serve).
func (svc *service) start() {
	svc.srv.goFunc(svc.hb.run)
	svc.startConsume()
}
