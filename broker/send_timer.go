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
func (b *Broker) handleTimerMessage(m *message.MessageExt) *codec.RemotingCommand {
	if c, remark, rejected := b.timerRejection(m); rejected {
		return b.newSendResponse(c, remark)
	}
	return nil
}

// timerRejection is the put hook's timer half (5.x applies it to sends and
// to END_TRANSACTION commits): it rewrites m when it is a timer message,
// or returns the code and remark 5.x answers when it cannot be one.
// A prepared (half) message is left alone, as 5.x only handles
// non-transactional and committed messages.
func (b *Broker) timerRejection(m *message.MessageExt) (c int32, remark string, rejected bool) {
	if m.Topic == topic.TransHalfTopic || !timer.IsTimer(m.PropertiesString) {
		// Without a timer property Rewrite changes nothing: skip its three
		// property scans and the clock read (issue #11).
		return 0, "", false
	}
	cfg := b.timerConfig()
	switch timer.Rewrite(m, time.Now(), cfg) {
	case timer.NotEnabled:
		return code.SystemError, "accurate timer message is not enabled, timerWheelEnable is " +
			strconv.FormatBool(cfg.Enabled), true
	case timer.Illegal:
		return code.MessageIllegal, fmt.Sprintf("timer message illegal, the delay time should not be "+
			"bigger than the max delay %dms; or if set del msg, the delay time should be bigger than the current time",
			cfg.MaxDelaySec*1000), true
	}
	return 0, "", false
}
