package timer

import (
	"errors"
	"strconv"
	"time"

	"github.com/rocketmq-go/rmq/internal/message"
)

// Topic is TimerMessageStore.TIMER_TOPIC; all timer messages wait in its
// queue 0.
const Topic = "rmq_sys_wheel_timer"

// 5.x MessageConst timer properties.
const (
	PropertyDelaySec   = "TIMER_DELAY_SEC"
	PropertyDelayMs    = "TIMER_DELAY_MS"
	PropertyDeliverMs  = "TIMER_DELIVER_MS"
	PropertyOutMs      = "TIMER_OUT_MS"
	PropertyEnqueueMs  = "TIMER_ENQUEUE_MS"
	PropertyDequeueMs  = "TIMER_DEQUEUE_MS"
	PropertyDelUniqKey = "TIMER_DEL_UNIQKEY"
)

// Result is the outcome of Rewrite, mirroring 5.x's PutMessageStatus values
// for timer messages.
type Result int

// Rewrite outcomes.
const (
	// NotTimer: the message is stored as it is (not a timer message, a
	// delay-level message, or a delivery time already passed).
	NotTimer Result = iota
	// Rewritten: the message now goes to rmq_sys_wheel_timer queue 0.
	Rewritten
	// NotEnabled is WHEEL_TIMER_NOT_ENABLE.
	NotEnabled
	// Illegal is WHEEL_TIMER_MSG_ILLEGAL (malformed value, delay too long).
	Illegal
)

// Config is what Rewrite needs from MessageStoreConfig.
type Config struct {
	Enabled     bool  // timerWheelEnable
	MaxDelaySec int64 // timerMaxDelaySec
	PrecisionMs int64 // timerPrecisionMs
}

// IsTimer reports whether props (a stored properties string) ask for timer
// delivery (checkIfTimerMessage, without the delay-level case).
func IsTimer(props string) bool {
	return message.PropertyValue(props, PropertyDeliverMs) != "" ||
		message.PropertyValue(props, PropertyDelayMs) != "" ||
		message.PropertyValue(props, PropertyDelaySec) != ""
}

// Rewrite is HookUtils.handleScheduleMessage's timer half for a message about
// to be stored (not prepared, not a rolled timer message). A delay level wins:
// the timer properties are dropped. A due time in the past stores the
// message as it is, as 5.x does.
func Rewrite(m *message.MessageExt, now time.Time, c Config) Result {
	if m.Topic == Topic {
		return NotTimer
	}
	// Atoi("") allocates its error: most messages have no delay level.
	if lv := message.PropertyValue(m.PropertiesString, message.PropertyDelayTimeLevel); lv != "" && atoiPositive(lv) {
		if IsTimer(m.PropertiesString) {
			p := message.ParseHashMapProperties(m.PropertiesString)
			p.Remove(PropertyDeliverMs)
			p.Remove(PropertyDelaySec)
			p.Remove(PropertyDelayMs)
			setProperties(m, p)
		}
		return NotTimer
	}
	// A message the timer already delivered (a send-back, a re-send) keeps
	// TIMER_OUT_MS; it is not rolled again. 5.x checks this only after the
	// delay level has dropped the timer properties.
	if message.PropertyValue(m.PropertiesString, PropertyOutMs) != "" || !IsTimer(m.PropertiesString) {
		return NotTimer
	}
	if !c.Enabled {
		return NotEnabled
	}
	nowMs := now.UnixMilli()
	p := message.ParseHashMapProperties(m.PropertiesString)
	deliverMs, err := deliverTime(p, nowMs)
	if err != nil {
		return Illegal
	}
	if deliverMs <= nowMs {
		if message.PropertyValue(m.PropertiesString, PropertyDelUniqKey) != "" {
			return Illegal
		}
		return NotTimer
	}
	if deliverMs-nowMs > c.MaxDelaySec*1000 {
		return Illegal
	}
	if prec := max(c.PrecisionMs, 1); deliverMs%prec == 0 {
		deliverMs -= prec
	} else {
		deliverMs = deliverMs / prec * prec
	}
	p.Put(PropertyOutMs, strconv.FormatInt(deliverMs, 10))
	p.Put(message.PropertyRealTopic, m.Topic)
	p.Put(message.PropertyRealQueueID, strconv.Itoa(int(m.QueueID)))
	setProperties(m, p)
	m.Topic = Topic
	m.QueueID = 0
	return Rewritten
}

var errMalformed = errors.New("timer: malformed delivery time")

// deliverTime reads the delivery time as 5.x does: TIMER_DELAY_SEC, else
// TIMER_DELAY_MS, else TIMER_DELIVER_MS (Long.parseLong rules).
func deliverTime(p *message.HashMapProperties, nowMs int64) (int64, error) {
	if v, ok := p.Get(PropertyDelaySec); ok {
		n, err := parseJavaLong(v)
		return nowMs + n*1000, err
	}
	if v, ok := p.Get(PropertyDelayMs); ok {
		n, err := parseJavaLong(v)
		return nowMs + n, err
	}
	v, _ := p.Get(PropertyDeliverMs)
	return parseJavaLong(v)
}

// parseJavaLong is Long.parseLong: optional sign, decimal digits only.
func parseJavaLong(s string) (int64, error) {
	if s == "" || s == "+" || s == "-" {
		return 0, errMalformed
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, errMalformed
	}
	return n, nil
}

func setProperties(m *message.MessageExt, p *message.HashMapProperties) {
	m.PropertiesString = p.String()
	if m.Properties != nil {
		m.Properties = p.Map()
	}
}

// DeliverAt is the TIMER_OUT_MS of a message stored in rmq_sys_wheel_timer.
func DeliverAt(props string) (int64, bool) {
	n, err := parseJavaLong(message.PropertyValue(props, PropertyOutMs))
	return n, err == nil
}

// convert is TimerMessageStore.convert without rolling: the stored message
// back to its real topic and queue, REAL_TOPIC/REAL_QID cleared,
// TIMER_ENQUEUE_MS/TIMER_DEQUEUE_MS and WAIT=false added (the CommitLog
// re-serializes 5.x's property map, so its stored string is this one).
// The UNIQ_KEY (the client's message id) is kept.
func convert(m *message.MessageExt, enqueueMs, dequeueMs int64) (*message.MessageExt, bool) {
	p := message.ParseHashMapProperties(m.PropertiesString)
	realTopic := p.Value(message.PropertyRealTopic)
	qid, err := strconv.ParseInt(p.Value(message.PropertyRealQueueID), 10, 32)
	if err != nil || realTopic == "" || qid < 0 {
		return nil, false
	}
	p.Put(PropertyEnqueueMs, strconv.FormatInt(enqueueMs, 10))
	p.Put(PropertyDequeueMs, strconv.FormatInt(dequeueMs, 10))
	p.Put(message.PropertyWaitStoreMsgOK, "false")
	p.Remove(message.PropertyRealTopic)
	p.Remove(message.PropertyRealQueueID)
	return &message.MessageExt{
		Message:          message.Message{Topic: realTopic, Flag: m.Flag, Body: m.Body, Properties: p.Map()},
		PropertiesString: p.String(),
		QueueID:          int32(qid),
		SysFlag:          m.SysFlag,
		BornTimestamp:    m.BornTimestamp,
		BornHost:         m.BornHost,
		StoreHost:        m.StoreHost,
		ReconsumeTimes:   m.ReconsumeTimes,
	}, true
}

// atoiPositive reports whether s is a decimal integer above zero.
func atoiPositive(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n > 0
}
