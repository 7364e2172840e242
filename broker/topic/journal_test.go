package topic

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/remoting/body"
)

// blockRewrites makes every full write of path fail (its temp file cannot
// be created), so that only the journal holds changes.
func blockRewrites(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(path+".tmp", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestTopicChangesReplayedFromJournal: every kind of change (admin create
// and update, send auto-create, retry topic, unit flag, order flags,
// delete) is in the journal when its method returns; a manager loading
// the store after a "crash" (no full write ever succeeded) gets the same
// table and data version. After a successful write the journal is gone
// and topics.json alone holds the table.
func TestTopicChangesReplayedFromJournal(t *testing.T) {
	t.Parallel()
	m := newManager(t, defaultOptions("b1"))
	blockRewrites(t, m.Path())
	upd := body.NewTopicConfig("Admin")
	upd.WriteQueueNums = 3
	m.UpdateTopicConfig(upd)
	upd.ReadQueueNums = 5
	m.UpdateTopicConfig(upd)
	if tc, created := m.CreateTopicInSendMessageMethod("Auto", AutoCreateTopicKeyTopic, "", 4, 0); tc == nil || !created {
		t.Fatal("auto-create refused")
	}
	m.CreateTopicInSendMessageBackMethod("%RETRY%g", 1, 6, 0)
	m.UpdateTopicUnitFlag("Auto", true)
	m.UpdateOrderTopicConfig(map[string]string{"Admin": "b1:4", "Auto": "b1:4"})
	m.UpdateTopicConfig(body.NewTopicConfig("Gone"))
	m.DeleteTopicConfig("Gone")

	load := func() *Manager {
		t.Helper()
		r := New(defaultOptions("b1"), m.Path(), zaptest.NewLogger(t))
		if err := r.Load(); err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := load()
	if got, want := r.Snapshot(), m.Snapshot(); !maps.Equal(got, want) || r.DataVersion() != m.DataVersion() {
		t.Fatalf("replayed %v %+v,\nwant %v %+v", got, r.DataVersion(), want, m.DataVersion())
	}
	if !r.IsOrderTopic("Admin") || r.SelectTopicConfig("Gone") != nil {
		t.Fatal("order flag or delete not replayed")
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
		t.Fatal("topics.json alone does not hold the table")
	}
}
