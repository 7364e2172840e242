package integration

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/testutil"
)

// txListener decides each local transaction by the body's prefix
// ("commit-", "rollback-", "unknown-") and answers the broker's checks:
// an unknown transaction turns out committed.
type txListener struct {
	mu     sync.Mutex
	checks map[string]int // body -> CHECK_TRANSACTION_STATE calls
}

func (l *txListener) ExecuteLocalTransaction(m *primitive.Message) primitive.LocalTransactionState {
	switch b := string(m.Body); {
	case strings.HasPrefix(b, "commit-"):
		return primitive.CommitMessageState
	case strings.HasPrefix(b, "rollback-"):
		return primitive.RollbackMessageState
	}
	return primitive.UnkonwnState
}

func (l *txListener) CheckLocalTransaction(m *primitive.MessageExt) primitive.LocalTransactionState {
	l.mu.Lock()
	l.checks[string(m.Body)]++
	l.mu.Unlock()
	if strings.HasPrefix(string(m.Body), "unknown-") {
		return primitive.CommitMessageState
	}
	return primitive.RollbackMessageState
}

func (l *txListener) checked(body string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.checks[body]
}

// TestTransactionGoClientCommitRollbackAndCheck drives the official Go
// client's TransactionProducer: committed transactions are delivered,
// rolled back ones never, and unknown ones after the broker's check-back
// (CHECK_TRANSACTION_STATE → END_TRANSACTION fromTransactionCheck commit).
func TestTransactionGoClientCommitRollbackAndCheck(t *testing.T) {
	e := newConsumeEnv(t, func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) {
		// A check the producer has not answered by the next pass is sent
		// again (as in Java), and two answers commit twice: 2 s leaves a
		// loaded machine running -race room to answer within a pass.
		c.TransactionCheckInterval = 2000
		c.TransactionTimeOut = 3000 // as the golden run; resolved halves never look overdue
	})
	l := &txListener{checks: map[string]int{}}
	group := uniqueName("txpg")
	tp, err := producer.NewTransactionProducer(l,
		producer.WithNsResolver(primitive.NewPassthroughResolver([]string{e.nsAddr})),
		producer.WithGroupName(group), producer.WithInstanceName(uniqueName("txp")), producer.WithRetry(2))
	if err != nil {
		t.Fatal(err)
	}
	if err := tp.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tp.Shutdown() })

	const n = 3
	for _, kind := range []string{"commit", "rollback", "unknown"} {
		for i := range n {
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			r, err := tp.SendMessageInTransaction(ctx, primitive.NewMessage(e.topic, []byte(kind+"-"+strconv.Itoa(i))))
			cancel()
			if err != nil || r.Status != primitive.SendOK {
				t.Fatalf("send %s-%d: %v %v", kind, i, r, err)
			}
		}
	}
	r := newReceived()
	e.startPush(pushOpts{group: uniqueName("txcg")}, r)
	r.waitAll(t, "commit", n, 20*time.Second)
	r.waitAll(t, "unknown", n, 20*time.Second)
	for i := range n {
		if c := l.checked("unknown-" + strconv.Itoa(i)); c == 0 {
			t.Fatalf("unknown-%d delivered without a check", i)
		}
	}
	// Wait until the check service has settled every half message (its
	// scan offsets reach the ends of the half and op queues), then count.
	b := e.b
	testutil.Eventually(t, 20*time.Second, func() error {
		half := b.Offsets().QueryOffset("CID_RMQ_SYS_TRANS", "RMQ_SYS_TRANS_HALF_TOPIC", 0)
		op := b.Offsets().QueryOffset("CID_RMQ_SYS_TRANS", "RMQ_SYS_TRANS_OP_HALF_TOPIC", 0)
		maxHalf := b.Store().MaxOffsetInQueue("RMQ_SYS_TRANS_HALF_TOPIC", 0)
		maxOp := b.Store().MaxOffsetInQueue("RMQ_SYS_TRANS_OP_HALF_TOPIC", 0)
		if half != maxHalf || op != maxOp {
			return fmt.Errorf("scan half %d/%d op %d/%d", half, maxHalf, op, maxOp)
		}
		return nil
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.seen) != 2*n {
		t.Fatalf("received %d distinct messages, want %d: %v", len(r.seen), 2*n, r.seen)
	}
	for body, c := range r.seen {
		if strings.HasPrefix(body, "rollback-") {
			t.Fatalf("rolled back %s delivered", body)
		}
		if c != 1 {
			t.Fatalf("%s delivered %d times", body, c)
		}
	}
	for i := range n {
		for _, kind := range []string{"commit-", "rollback-"} {
			if c := l.checked(kind + strconv.Itoa(i)); c != 0 {
				t.Fatalf("resolved %s%d was checked %d times", kind, i, c)
			}
		}
	}
}
