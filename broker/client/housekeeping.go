package client

// Housekeeping mirrors Java's ClientHousekeepingService.

import (
	"context"
	"time"

	"github.com/rocketmq-go/rmq/internal/service"
	"github.com/rocketmq-go/rmq/remoting"
)

// HousekeepingInterval is how often expired client channels are scanned.
const HousekeepingInterval = 10 * time.Second

// Housekeeping unregisters closed and idle connections from the producer
// and consumer managers and scans for silent channels every 10 s. It is
// the broker server's remoting.ChannelEventListener.
type Housekeeping struct {
	producers *ProducerManager
	consumers *ConsumerManager
	svc       *service.Service
}

var _ remoting.ChannelEventListener = (*Housekeeping)(nil)

// NewHousekeeping returns a stopped service over the two managers;
// interval <= 0 means HousekeepingInterval.
func NewHousekeeping(producers *ProducerManager, consumers *ConsumerManager, interval time.Duration) *Housekeeping {
	if interval <= 0 {
		interval = HousekeepingInterval
	}
	h := &Housekeeping{producers: producers, consumers: consumers}
	h.svc = service.New("ClientHousekeepingService", interval, func(context.Context) { h.Scan() })
	return h
}

// Start spawns the scan goroutine.
func (h *Housekeeping) Start() { h.svc.Start() }

// Stop stops the scan goroutine, waiting at most until ctx is done.
func (h *Housekeeping) Stop(ctx context.Context) error { return h.svc.Stop(ctx) }

// Scan runs one expiry pass over both managers.
func (h *Housekeeping) Scan() {
	h.producers.ScanNotActiveChannel()
	h.consumers.ScanNotActiveChannel()
}

// OnChannelConnect does nothing: clients register by heartbeat.
func (h *Housekeeping) OnChannelConnect(*remoting.Channel) {}

// OnChannelClose unregisters the connection everywhere.
func (h *Housekeeping) OnChannelClose(ch *remoting.Channel) { h.ChannelGone(ch) }

// OnChannelIdle unregisters the connection everywhere (the transport closes it).
func (h *Housekeeping) OnChannelIdle(ch *remoting.Channel) { h.ChannelGone(ch) }

// ChannelGone removes ch from every producer and consumer group.
func (h *Housekeeping) ChannelGone(ch Channel) {
	addr := ch.RemoteAddr()
	h.producers.DoChannelCloseEvent(addr, ch)
	h.consumers.DoChannelCloseEvent(addr, ch)
}
