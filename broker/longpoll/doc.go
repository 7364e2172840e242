// Package longpoll holds PULL_MESSAGE requests that found nothing new until a
// message arrives or their suspend time runs out. It mirrors Apache RocketMQ
// 4.9.8's PullRequestHoldService, ManyPullRequest and
// NotifyMessageArrivingListener (broker/longpolling).
//
//	PullMessageProcessor ── PULL_NOT_FOUND + FLAG_SUSPEND ──▶ Suspend(req)
//	                                                            │
//	          table: {topic, queueId} ─▶ []*Request (arrival order)
//	                                                            │
//	store reput (master) ── Arriving(topic, qid, maxOffset, tagsCode, props) ─┤
//	hold service tick (5 s long polling, 1 s short polling) ── Check() ───────┘
//	                                                            │
//	          newest offset > request offset and filter matches, or timed out
//	                                                            ▼
//	                                   req.Wakeup() (exactly once; the broker
//	                                   re-runs the pull without suspension on
//	                                   its pull pool and answers with ctx.Respond)
//
// Invariants: a request is woken at most once, and never while the table
// lock is held; nothing here blocks the caller of Arriving (the store's
// dispatch goroutine) beyond filter evaluation; a request whose Abandoned
// func reports true (its connection closed) is dropped silently, as Java's
// write to a dead channel goes nowhere; requests still held at Stop are
// dropped unanswered, as Java's are (the broker has closed their
// connections by then, as Java's remoting shutdown does), each told through
// its Dropped func. After Stop nothing enters the table again: the
// requests an arrival racing Stop had taken out are still woken if ready
// and dropped otherwise, and a late Suspend is dropped at once, so the
// held counts are zero and every request ends exactly once (woken,
// abandoned or dropped).
//
// Usage:
//
//	s := longpoll.New(longpoll.Options{MaxOffset: st.MaxOffsetInQueue, Interval: 5 * time.Second})
//	s.Start()
//	s.Suspend(&longpoll.Request{Topic: t, QueueID: q, Offset: off, TimeoutMillis: 15000, Wakeup: rerun})
//	s.Arriving(t, q, maxOffset, tagsCode, storeTime, nil, props) // from the store listener
package longpoll
