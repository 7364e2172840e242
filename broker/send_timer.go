package broker

// Timer messages on send (5.x HookUtils.handleScheduleMessage, timer half,
// and SendMessageProcessor's WHEEL_TIMER_* answers): a message carrying
// TIMER_DELIVER_MS / TIMER_DELAY_SEC / TIMER_DELAY_MS is stored in
// rmq_sys_wheel_timer queue 0 until broker/timer delivers it.

import (
	"fmt"
	"strconv"
	"time"

	"github.com/rocketmq-go/rmq/broker/timer"
	"github.com/rocketmq-go/rmq/broker/topic"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// timerConfig is the send-time part of the timer configuration.
func (b *Broker) timerConfig() timer.Config {
	return timer.Config{
		Enabled:     b.storeCfg.TimerWheelEnable,
		MaxDelaySec: b.storeCfg.TimerMaxDelaySec,
		PrecisionMs: int64(b.storeCfg.TimerPrecisionMs),
	}
}

// handleTimerMessage rewrites a timer message to the timer topic, or
// answers as 5.x does when it cannot be one; nil means store m.
// A prepared (half) message is left alone, as 5.x only handles
// non-transactional and committed messages.
func (b *Broker) handleTimerMessage(m *message.MessageExt) *codec.RemotingCommand {
	if m.Topic == topic.TransHalfTopic {
		return nil
	}
	c := b.timerConfig()
	switch timer.Rewrite(m, time.Now(), c) {
	case timer.NotEnabled:
		return b.newSendResponse(code.SystemError,
			"accurate timer message is not enabled, timerWheelEnable is "+strconv.FormatBool(c.Enabled))
	case timer.Illegal:
		return b.newSendResponse(code.MessageIllegal, fmt.Sprintf("timer message illegal, the delay time should not be "+
			"bigger than the max delay %dms; or if set del msg, the delay time should be bigger than the current time",
			c.MaxDelaySec*1000))
	}
	return nil
}
