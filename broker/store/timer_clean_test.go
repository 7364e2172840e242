package store

import "testing"

// TestStoreCleanUnusedTopicKeepsTimerQueue: CLEAN_UNUSED_TOPIC keeps the
// timer messages waiting in rmq_sys_wheel_timer (not a configured topic,
// like SCHEDULE_TOPIC_XXXX); dropping it would lose every pending timer
// message.
func TestStoreCleanUnusedTopicKeepsTimerQueue(t *testing.T) {
	cfg := smallConfig(t)
	s := startStore(t, cfg)
	mustPut(t, s, newMsg(timerTopic, 0, "", "", []byte("x")))
	waitDispatched(t, s)
	s.CleanUnusedTopic(map[string]struct{}{})
	if s.MaxOffsetInQueue(timerTopic, 0) != 1 {
		t.Fatal("timer queue dropped by CleanUnusedTopic")
	}
}
