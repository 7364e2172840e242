package commitlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommitLogAppendFaultIsAnError truncates the CommitLog file under its
// mapping, so that rendering the next record faults (SIGBUS, as when a
// sparse page cannot get a block on a full disk): the put must fail with
// UNKNOWN_ERROR instead of killing the process, and publish nothing.
func TestCommitLogAppendFaultIsAnError(t *testing.T) {
	dir := t.TempDir()
	c := openLog(t, testConfig(dir, 64<<10), nil)
	mustPut(t, c, newMsg("T", 0, "first", ""))
	end := c.MaxOffset()
	if err := os.Truncate(filepath.Join(dir, "00000000000000000000"), 0); err != nil {
		t.Fatal(err)
	}
	r := c.PutMessage(newMsg("T", 0, strings.Repeat("x", 9000), ""))
	if r.Status != UnknownError || r.Append.Status != AppendUnknownError {
		t.Fatalf("put into a faulting mapping: %v / %v, want UNKNOWN_ERROR", r.Status, r.Append.Status)
	}
	if c.MaxOffset() != end || c.TopicQueueTable()["T-0"] != 1 {
		t.Fatalf("failed put published: max offset %d (was %d), queue table %v", c.MaxOffset(), end, c.TopicQueueTable())
	}
}

// TestCommitLogSlaveAppendFaultIsAnError: replicated bytes that cannot be
// stored are an error for the HA client, not a silent gap.
func TestCommitLogSlaveAppendFaultIsAnError(t *testing.T) {
	dir := t.TempDir()
	slave := openLog(t, testConfig(dir, 64<<10), nil)
	if err := slave.AppendData(0, []byte("head")); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filepath.Join(dir, "00000000000000000000"), 0); err != nil {
		t.Fatal(err)
	}
	if err := slave.AppendData(4, make([]byte, 9000)); err == nil {
		t.Fatal("replicated bytes lost without an error")
	}
	if slave.MaxOffset() != 4 {
		t.Fatalf("slave max offset %d after a failed append, want 4", slave.MaxOffset())
	}
}
