package store

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rocketmq-go/rmq/internal/message"
)

// propsListener records the properties of each arrival and wants them
// while want is set.
type propsListener struct {
	want atomic.Bool
	mu   sync.Mutex
	got  []map[string]string
}

func (l *propsListener) Arriving(_ string, _ int32, _, _, _ int64, _ []byte, props map[string]string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, props)
}

func (l *propsListener) WantsArrivingProperties() bool { return l.want.Load() }

func (l *propsListener) last(t *testing.T, n int) map[string]string {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.got) != n {
		t.Fatalf("%d arrivals, want %d", len(l.got), n)
	}
	return l.got[n-1]
}

// TestStoreArrivingPropertiesOnlyWhenWanted: the dispatcher hands the
// listener a message's properties while it wants them and nil otherwise;
// either way the tags code, the consume queue and the index by KEYS and
// UNIQ_KEY are the same.
func TestStoreArrivingPropertiesOnlyWhenWanted(t *testing.T) {
	l := &propsListener{}
	cfg := smallConfig(t)
	s := startStore(t, cfg, WithMessageArrivingListener(l))
	put := func(keys string) string {
		m := newMsg("P", 0, "TagA", keys, []byte("x"))
		m.Properties["color"] = "red"
		m.PropertiesString = message.MarshalProperties(m.Properties)
		mustPut(t, s, m)
		waitDispatched(t, s)
		return m.Properties[message.PropertyUniqClientMessageIDKeyidx]
	}
	uniq1 := put("k1 k2")
	if p := l.last(t, 1); p != nil {
		t.Fatalf("not wanted, got properties %v", p)
	}
	l.want.Store(true)
	uniq2 := put("k3")
	p := l.last(t, 2)
	if p["color"] != "red" || p[message.PropertyTags] != "TagA" || p[message.PropertyKeys] != "k3" ||
		p[message.PropertyUniqClientMessageIDKeyidx] != uniq2 {
		t.Fatalf("wanted, got properties %v", p)
	}
	for key, phy := range map[string]int{"k1": 1, "k2": 1, uniq1: 1, "k3": 1, uniq2: 1} {
		if r := s.QueryMessage("P", key, 32, 0, 1<<62); len(r.Messages) != phy {
			t.Errorf("query by key %q: %d messages, want %d", key, len(r.Messages), phy)
		}
	}
	b := s.GetMessage("g", "P", 0, 0, 8, tagFilter{message.TagsCode("TagA"): true})
	if b == nil || len(b.Messages) != 2 {
		t.Fatalf("consume queue by tag: %+v", b)
	}
	checkConsistent(t, cfg)
}
