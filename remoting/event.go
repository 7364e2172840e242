package remoting

import "go.uber.org/zap"

// ChannelEventListener learns about connections (Java's ChannelEventListener).
// Its methods run on one event goroutine, never on an event loop, in the
// order the events happened; a slow listener delays later events only.
type ChannelEventListener interface {
	OnChannelConnect(ch *Channel)
	OnChannelClose(ch *Channel)
	OnChannelIdle(ch *Channel)
}

// EventType names a channel event (Java's NettyEventType; EXCEPTION is folded into CLOSE).
type EventType uint8

// Channel event types.
const (
	EventConnect EventType = iota
	EventClose
	EventIdle
)

type channelEvent struct {
	typ EventType
	ch  *Channel
}

func (ep *endpoint) setListener(l ChannelEventListener) {
	ep.listenerMu.Lock()
	ep.listener = l
	ep.listenerMu.Unlock()
}

func (ep *endpoint) getListener() ChannelEventListener {
	ep.listenerMu.RLock()
	defer ep.listenerMu.RUnlock()
	return ep.listener
}

// maxQueuedEvents is Java's NettyEventExecutor queue limit.
const maxQueuedEvents = 10000

// fire queues an event without blocking; like Java it drops events when
// 10000 are already waiting. The queue is a slice that grows with what it
// holds (a 10,000-slot channel buffer would be pointer slots the garbage
// collector scans on every cycle, events or not).
func (ep *endpoint) fire(t EventType, ch *Channel) {
	if ep.getListener() == nil {
		return
	}
	ep.evMu.Lock()
	full := len(ep.evQueue) >= maxQueuedEvents
	if !full {
		ep.evQueue = append(ep.evQueue, channelEvent{typ: t, ch: ch})
	}
	ep.evMu.Unlock()
	if full {
		ep.lg.Warn("event queue size meet the limit, so drop this event", zap.Uint8("event", uint8(t)),
			zap.String("remoteAddr", ch.remoteAddr))
		return
	}
	select {
	case ep.evWake <- struct{}{}:
	default:
	}
}

// takeEvents returns the queued events in order and empties the queue.
func (ep *endpoint) takeEvents(spare []channelEvent) []channelEvent {
	ep.evMu.Lock()
	defer ep.evMu.Unlock()
	evs := ep.evQueue
	ep.evQueue = spare[:0]
	return evs
}

// eventLoop is the event goroutine (Java's NettyEventExecutor); after evStop
// it delivers what is still queued and returns.
func (ep *endpoint) eventLoop() {
	var spare []channelEvent
	for {
		stopping := false
		select {
		case <-ep.evWake:
		case <-ep.evStop:
			stopping = true
		}
		evs := ep.takeEvents(spare)
		for i, ev := range evs {
			ep.deliver(ev)
			evs[i] = channelEvent{}
		}
		if cap(evs) <= 64 {
			spare = evs
		} else {
			spare = nil
		}
		if stopping {
			if evs := ep.takeEvents(nil); len(evs) > 0 {
				for _, ev := range evs {
					ep.deliver(ev)
				}
			}
			return
		}
	}
}

func (ep *endpoint) deliver(ev channelEvent) {
	l := ep.getListener()
	if l == nil {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			ep.lg.Error("channel event listener panic", zap.Any("panic", r), zap.Stack("stack"))
		}
	}()
	switch ev.typ {
	case EventConnect:
		l.OnChannelConnect(ev.ch)
	case EventClose:
		l.OnChannelClose(ev.ch)
	case EventIdle:
		l.OnChannelIdle(ev.ch)
	}
}
