package timer

import (
	"context"
	"fmt"
	"net/netip"
	"strconv"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/wait"
)

// fakeClock is a settable clock for the service and Rewrite.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

var testCfg = Config{Enabled: true, MaxDelaySec: 3 * 24 * 3600, PrecisionMs: 1000}

// openStore opens and starts a store in dir; the caller closes it.
func openStore(t testing.TB, dir string) *store.DefaultMessageStore {
	t.Helper()
	cfg := store.NewMessageStoreConfig()
	cfg.StorePathRootDir = dir
	cfg.StorePathCommitLog = ""
	cfg.MappedFileSizeCommitLog = 8 << 20
	st, err := store.Open(cfg, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Start(); err != nil {
		t.Fatal(err)
	}
	return st
}

func closeStore(t testing.TB, st *store.DefaultMessageStore) {
	t.Helper()
	if err := st.Shutdown(context.Background()); err != nil {
		t.Errorf("store shutdown: %v", err)
	}
}

var testHost = netip.MustParseAddrPort("127.0.0.1:10911")

// sendTimer stores a message for topic/queue 1 carrying prop=value as the
// broker's send path would (Rewrite at now, then PutMessage).
func sendTimer(t testing.TB, st *store.DefaultMessageStore, now time.Time, topic, body, prop, value string) {
	t.Helper()
	props := message.ParseHashMapProperties("")
	props.Put(message.PropertyUniqClientMessageIDKeyidx, "UNIQ-"+body)
	props.Put(prop, value)
	m := &message.MessageExt{
		Message:          message.Message{Topic: topic, Body: []byte(body)},
		PropertiesString: props.String(),
		QueueID:          1,
		BornTimestamp:    now.UnixMilli(),
		BornHost:         testHost,
		StoreHost:        testHost,
	}
	if r := Rewrite(m, now, testCfg); r != Rewritten {
		t.Fatalf("Rewrite(%s=%s) = %v", prop, value, r)
	}
	if r := st.PutMessage(m); r.Status.String() != "PUT_OK" {
		t.Fatalf("put: %v", r.Status)
	}
}

// waitQueue waits until topic/queue holds n units (dispatch is async).
func waitQueue(t testing.TB, st *store.DefaultMessageStore, topic string, qid int32, n int64) {
	t.Helper()
	wait.Eventually(t, 10*time.Second, func() error {
		if got := st.MaxOffsetInQueue(topic, qid); got != n {
			return fmt.Errorf("%s/%d holds %d units, want %d", topic, qid, got, n)
		}
		return nil
	})
}

// delivered returns the bodies in topic queue 1, in order, and their
// messages.
func delivered(t testing.TB, st *store.DefaultMessageStore, topic string) []*message.MessageExt {
	t.Helper()
	cq := st.ConsumeQueue(topic, 1)
	if cq == nil {
		return nil
	}
	var out []*message.MessageExt
	for off := cq.MinOffsetInQueue(); off < cq.MaxOffsetInQueue(); off++ {
		u := cq.Units(off)
		if u == nil {
			break
		}
		phy, _, _ := u.At(0)
		u.Release()
		m, err := st.LookMessageByOffset(phy)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func bodies(ms []*message.MessageExt) []string {
	var out []string
	for _, m := range ms {
		out = append(out, string(m.Body))
	}
	return out
}

func ms(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }
