package subscription

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/remoting/body"
)

// TestGroupChangesReplayedFromJournal: admin creates/updates, auto-created
// groups and deletes are in the journal when their method returns; a
// manager loading the store after a "crash" (every full write failed)
// gets the same table and data version; after a successful write only
// subscriptionGroup.json is left.
func TestGroupChangesReplayedFromJournal(t *testing.T) {
	t.Parallel()
	m := newManager(t, true)
	if err := os.MkdirAll(filepath.Join(m.Path()+".tmp", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := body.NewSubscriptionGroupConfig("cg")
	c.RetryMaxTimes = 3
	m.UpdateSubscriptionGroupConfig(c)
	if _, ok := m.FindSubscriptionGroupConfig("auto"); !ok {
		t.Fatal("auto-create refused")
	}
	m.UpdateSubscriptionGroupConfig(body.NewSubscriptionGroupConfig("gone"))
	m.DeleteSubscriptionGroupConfig("gone")
	load := func() *Manager {
		t.Helper()
		r := New(m.Path(), true, zaptest.NewLogger(t))
		if err := r.Load(); err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := load(); !maps.Equal(r.Snapshot(), m.Snapshot()) || r.DataVersion() != m.DataVersion() {
		t.Fatalf("replayed %v %+v,\nwant %v %+v", r.Snapshot(), r.DataVersion(), m.Snapshot(), m.DataVersion())
	}
	if err := os.RemoveAll(m.Path() + ".tmp"); err != nil {
		t.Fatal(err)
	}
	if err := m.Persist(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{m.journal.Path(), m.journal.RotatedPath()} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s left after a successful write: %v", p, err)
		}
	}
	if r := load(); !maps.Equal(r.Snapshot(), m.Snapshot()) || r.DataVersion() != m.DataVersion() {
		t.Fatal("subscriptionGroup.json alone does not hold the table")
	}
}
