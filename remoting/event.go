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

// fire queues an event without blocking; like Java it drops events when
// 10000 are already waiting.
func (ep *endpoint) fire(t EventType, ch *Channel) {
	if ep.getListener() == nil {
		return
	}
	select {
	case ep.events <- channelEvent{typ: t, ch: ch}:
	default:
		ep.lg.Warn("event queue size meet the limit, so drop this event", zap.Uint8("event", uint8(t)),
			zap.String("remoteAddr", ch.remoteAddr))
	}
}

// eventLoop is the event goroutine (Java's NettyEventExecutor); after evStop
// it delivers what is still queued and returns.
func (ep *endpoint) eventLoop() {
	for {
		select {
		case ev := <-ep.events:
			ep.deliver(ev)
		case <-ep.evStop:
			for {
				select {
				case ev := <-ep.events:
					ep.deliver(ev)
				default:
					return
				}
			}
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
