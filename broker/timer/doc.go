// Package timer serves RocketMQ 5.x timer messages (TIMER_DELIVER_MS,
// TIMER_DELAY_SEC, TIMER_DELAY_MS) on the 4.9.8-compatible store, in the
// spirit of 5.x's TimerMessageStore but with a design of ours (docs/timer.md):
//
//   - the send path (Rewrite) moves a timer message to rmq_sys_wheel_timer
//     queue 0 with TIMER_OUT_MS, REAL_TOPIC and REAL_QID, as 5.x's
//     HookUtils.transformTimerMessage does; the CommitLog and that topic's
//     consume queue are the durable index: each unit holds the message's
//     CommitLog offset and size, its TIMER_OUT_MS is read from the message;
//   - Service (master only) ingests the queue into an in-memory min-heap
//     keyed by (deliverAt, queueOffset) and, at 1 s precision or better,
//     re-puts every due message to its real topic and queue;
//   - the checkpoint file <storeRoot>/timercheck records how far the queue
//     was ingested and which part of it is settled, so a restart re-reads
//     only the pending part of the queue (messages due during downtime are
//     delivered at once).
//
// timercheck (big-endian, 44 bytes):
//
//	+--------+-------------+------------+------------+-------------+--------+
//	| magic  | ingestOffset| minPending | settledAt  | settledQo   | crc32  |
//	| int32  | int64       | int64      | int64      | int64       | uint32 |
//	+--------+-------------+------------+------------+-------------+--------+
//
// Invariant: every unit at queue offset q in [minPending, ingestOffset) whose
// key (deliverAt, q) is below (settledAt, settledQo) was delivered; every
// other unit in that range, and every unit from ingestOffset on, may still be
// pending. Delivery is at least once: after a crash a unit delivered since
// the last checkpoint can be delivered again (never lost).
//
// Usage:
//
//	s := timer.NewService(store, timer.Options{CheckpointPath: p})
//	s.Start()
//	defer s.Stop(ctx)
package timer
