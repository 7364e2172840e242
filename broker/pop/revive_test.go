package pop

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"
)

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPopReviveQueuePairsAndCommits: acks (single and batch) settle their
// checkpoint; a due checkpoint reports only its unacked offsets; Commit
// stays at the oldest unsettled checkpoint.
func TestPopReviveQueuePairsAndCommits(t *testing.T) {
	q := NewReviveQueue(0, 5)
	ck1 := Checkpoint{StartOffset: 10, PopTime: 1000, InvisibleTime: 100, CID: "g", Topic: "T", QueueID: 1,
		BrokerName: "b", QueueOffsetDiff: []int32{0, 1, 3}}
	ck2 := ck1
	ck2.StartOffset, ck2.PopTime, ck2.QueueOffsetDiff = 20, 2000, []int32{0}
	q.Feed(4, CkTag, mustJSON(t, ck1)) // before the start: ignored
	q.Feed(5, CkTag, mustJSON(t, ck1))
	q.Feed(6, CkTag, mustJSON(t, ck2))
	q.Feed(7, AckTag, mustJSON(t, AckMsg{AckOffset: 11, StartOffset: 10, ConsumerGroup: "g", Topic: "T", QueueID: 1, PopTime: 1000, BrokerName: "b"}))
	q.Feed(8, AckTag, []byte("{not json"))
	if q.Pending() != 2 || q.Commit() != 5 || q.Next() != 9 {
		t.Fatalf("pending %d commit %d next %d", q.Pending(), q.Commit(), q.Next())
	}
	due := q.Due(1100)
	if len(due) != 1 || !reflect.DeepEqual(due[0].Offsets, []int64{10, 13}) {
		t.Fatalf("due at 1100: %+v", due)
	}
	q.Settle(&due[0].Checkpoint)
	if q.Commit() != 6 {
		t.Fatalf("commit after settling ck1: %d", q.Commit())
	}
	q.Feed(9, BatchAckTag, mustJSON(t, AckMsg{AckOffset: -1, AckOffsetList: []int64{20}, StartOffset: 20, ConsumerGroup: "g",
		Topic: "T", QueueID: 1, PopTime: 2000, BrokerName: "b"}))
	if q.Pending() != 0 || q.Commit() != 10 || len(q.Due(1<<62)) != 0 {
		t.Fatalf("after batch ack: pending %d commit %d", q.Pending(), q.Commit())
	}
}

// FuzzReviveFeed: arbitrary revive records never panic the pairing.
func FuzzReviveFeed(f *testing.F) {
	f.Add(CkTag, []byte(`{"so":1,"pt":1,"it":1,"d":[0,5],"t":"T","c":"g","q":0,"bn":"b"}`))
	f.Add(AckTag, []byte(`{"ao":6,"so":1,"pt":1,"t":"T","c":"g","q":0,"bn":"b"}`))
	f.Add(BatchAckTag, []byte(`{"ao":-1,"aol":[1,6,9],"so":1,"pt":1,"t":"T","c":"g","q":0,"bn":"b"}`))
	f.Fuzz(func(t *testing.T, tag string, b []byte) {
		q := NewReviveQueue(0, 0)
		q.Feed(0, CkTag, []byte(`{"so":1,"pt":1,"it":1,"d":[0,5],"t":"T","c":"g","q":0,"bn":"b"}`))
		q.Feed(1, tag, b)
		for _, d := range q.Due(1 << 62) {
			q.Settle(&d.Checkpoint)
		}
		if q.Commit() > q.Next() {
			t.Fatalf("commit %d past next %d", q.Commit(), q.Next())
		}
	})
}

// TestPopRevivePairsLongNames: a checkpoint with "cId" and an ack with
// AckMsg's alternateNames (long names) pair as the short forms do.
func TestPopRevivePairsLongNames(t *testing.T) {
	q := NewReviveQueue(0, 0)
	q.Feed(0, CkTag, []byte(`{"bm":0,"bn":"b","cId":"g","d":[0],"it":1,"n":1,"pt":5,"q":2,"reviveTime":6,"ro":0,"so":7,"t":"T"}`))
	q.Feed(1, AckTag, []byte(`{"ackOffset":7,"brokerName":"b","consumerGroup":"g","popTime":5,"queueId":2,"startOffset":7,"topic":"T"}`))
	if q.Pending() != 0 {
		t.Fatalf("long-name ack did not settle the checkpoint: %d pending", q.Pending())
	}
	// Our own records round-trip.
	ck := Checkpoint{CID: "g", Topic: "T", QueueOffsetDiff: []int32{0, 2}, StartOffset: 3}
	var back Checkpoint
	if err := json.Unmarshal(mustJSON(t, ck), &back); err != nil || back.CID != "g" || len(back.QueueOffsetDiff) != 2 {
		t.Fatalf("round trip %+v %v", back, err)
	}
}

// TestPopReviveQueueRevivedOffsetsNotDueAgain: a message recorded as
// re-put is not listed again; the checkpoint stays pending (and holds the
// commit) for the others until settled.
func TestPopReviveQueueRevivedOffsetsNotDueAgain(t *testing.T) {
	q := NewReviveQueue(0, 0)
	ck := Checkpoint{StartOffset: 10, PopTime: 1000, InvisibleTime: 100, CID: "g", Topic: "T", QueueID: 1,
		BrokerName: "b", QueueOffsetDiff: []int32{0, 1, 2}}
	q.Feed(0, CkTag, mustJSON(t, ck))
	due := q.Due(1100)
	q.Revived(&due[0].Checkpoint, 10)
	q.Revived(&due[0].Checkpoint, 12)
	q.Revived(&due[0].Checkpoint, 12) // twice: counted once
	q.Revived(&due[0].Checkpoint, 99) // not in the checkpoint
	due = q.Due(1100)
	if len(due) != 1 || !reflect.DeepEqual(due[0].Offsets, []int64{11}) || q.Commit() != 0 {
		t.Fatalf("due after re-puts: %+v, commit %d", due, q.Commit())
	}
	q.Settle(&due[0].Checkpoint)
	if q.Pending() != 0 || q.Commit() != 1 {
		t.Fatalf("pending %d commit %d", q.Pending(), q.Commit())
	}
}

// TestPopReviveRewriteCheckpoint: the rewrite of a message that could not
// be re-put is a one-message checkpoint at that offset, with the pop time
// kept, one more rePutTimes and 5.x's back-off added when the old one was
// due; after MaxRePutTimes rewrites it repeats the last back-off, or gives
// the message up when skip is set. Fed to a revive queue whose original
// checkpoint settled, it is pending until its new due time.
func TestPopReviveRewriteCheckpoint(t *testing.T) {
	old := Checkpoint{StartOffset: 10, PopTime: 1000, InvisibleTime: 100, CID: "g", Topic: "T", QueueID: 1,
		BrokerName: "b", QueueOffsetDiff: []int32{0, 2}, Num: 2}
	ck, ok := RewriteCheckpoint(&old, 12, 1100, false)
	if !ok || ck.StartOffset != 12 || ck.Num != 1 || !reflect.DeepEqual(ck.QueueOffsetDiff, []int32{0}) ||
		ck.PopTime != 1000 || ck.InvisibleTime != 10_100 || ck.ReviveTime != 11_100 || ck.RePutCount() != 1 ||
		ck.CID != "g" || ck.Topic != "T" || ck.QueueID != 1 || ck.BrokerName != "b" {
		t.Fatalf("first rewrite %+v", ck)
	}
	ck2, _ := RewriteCheckpoint(&ck, 12, 11_100, false)
	if ck2.InvisibleTime != 30_100 || ck2.RePutCount() != 2 {
		t.Fatalf("second rewrite %+v", ck2)
	}
	if early, _ := RewriteCheckpoint(&ck, 12, 11_099, false); early.InvisibleTime != ck.InvisibleTime {
		t.Fatalf("rewrite before the due time moved it: %+v", early)
	}
	n := strconv.Itoa(MaxRePutTimes)
	last := ck
	last.RePutTimes = &n
	if ck3, ok := RewriteCheckpoint(&last, 12, 1<<40, false); !ok || ck3.InvisibleTime != last.InvisibleTime+7_200_000 {
		t.Fatalf("rewrite past the bound %+v %v", ck3, ok)
	}
	if _, ok := RewriteCheckpoint(&last, 12, 1<<40, true); ok {
		t.Fatal("skip: rewritten past the bound")
	}
	q := NewReviveQueue(0, 0)
	q.Feed(0, CkTag, mustJSON(t, old))
	q.Settle(&old)
	q.Feed(1, CkTag, mustJSON(t, ck))
	if due := q.Due(11_099); len(due) != 0 || q.Commit() != 1 {
		t.Fatalf("before its due time: %+v commit %d", due, q.Commit())
	}
	if due := q.Due(11_100); len(due) != 1 || !reflect.DeepEqual(due[0].Offsets, []int64{12}) {
		t.Fatalf("at its due time: %+v", due)
	}
}

// TestPopReviveRewriteWhileOriginalPending: a rewritten checkpoint for the
// first message of a checkpoint that is still pending (another of its
// messages could be neither re-put nor rewritten) is tracked on its own,
// not dropped as a duplicate of the original.
func TestPopReviveRewriteWhileOriginalPending(t *testing.T) {
	old := Checkpoint{StartOffset: 10, PopTime: 1000, InvisibleTime: 100, CID: "g", Topic: "T", QueueID: 1,
		BrokerName: "b", QueueOffsetDiff: []int32{0, 2}, Num: 2}
	q := NewReviveQueue(0, 0)
	q.Feed(0, CkTag, mustJSON(t, old))
	ck, _ := RewriteCheckpoint(&old, 10, 1100, false)
	q.Revived(&old, 10)
	q.Feed(1, CkTag, mustJSON(t, ck))
	if q.Pending() != 2 {
		t.Fatalf("pending %d, want the original and its rewrite", q.Pending())
	}
	due := q.Due(ck.Due())
	if len(due) != 2 || !reflect.DeepEqual(due[0].Offsets, []int64{12}) || !reflect.DeepEqual(due[1].Offsets, []int64{10}) {
		t.Fatalf("due %+v", due)
	}
	q.Settle(&due[0].Checkpoint)
	if q.Pending() != 1 || q.Commit() != 1 {
		t.Fatalf("after settling the original: pending %d commit %d", q.Pending(), q.Commit())
	}
}
