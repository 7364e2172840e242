package ha

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/internal/wait"
)

func shortTimeouts(c *Config) {
	c.HeartbeatInterval = 100 * time.Millisecond
	c.HousekeepingInterval = 400 * time.Millisecond
}

// TestHASyncMasterAcknowledged: with a slave every send succeeds, and every
// acknowledged message is already on the slave when PutOK comes back.
func TestHASyncMasterAcknowledged(t *testing.T) {
	master := startNode(t, "", store.SyncMaster)
	slave := startNode(t, "", store.Slave)
	slave.ha.UpdateMasterAddress(master.haAddr())
	wait.Eventually(t, 5*time.Second, func() error {
		if master.ha.ConnectionCount() == 0 {
			return errors.New("slave not connected")
		}
		return nil
	})
	for i := 0; i < 200; i++ {
		r := master.st.PutMessage(newMsg("TopicSync", int32(i%4), body(i, 300)))
		if r.Status != commitlog.PutOK {
			t.Fatalf("put %d: %v", i, r.Status)
		}
		end := r.Append.WroteOffset + int64(r.Append.WroteBytes)
		if got := slave.st.MaxPhyOffset(); got < end {
			t.Fatalf("put %d acknowledged at %d but the slave holds only %d", i, end, got)
		}
	}
	waitReplicated(t, master.st, slave.st, 0)
}

// TestHASyncMasterNoSlave: no slave connected -> SLAVE_NOT_AVAILABLE.
func TestHASyncMasterNoSlave(t *testing.T) {
	master := startNode(t, "", store.SyncMaster)
	for i, s := range putN(t, master.st, "TopicSync", 0, 3, 100) {
		if s != commitlog.SlaveNotAvailable {
			t.Fatalf("put %d: %v, want SLAVE_NOT_AVAILABLE", i, s)
		}
	}
}

// rawSlave connects to the master's HA port as a bare TCP peer.
func rawSlave(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TestHASyncMasterSilentSlave: a slave that never acknowledges makes the
// send fail with FLUSH_SLAVE_TIMEOUT after syncFlushTimeout.
func TestHASyncMasterSilentSlave(t *testing.T) {
	master := startNode(t, "", store.SyncMaster)
	master.cfg.SyncFlushTimeout = 300
	c := rawSlave(t, master.haAddr())
	if _, err := c.Write(AppendReport(nil, 0)); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, 5*time.Second, func() error {
		if master.ha.ConnectionCount() == 0 {
			return errors.New("not connected")
		}
		return nil
	})
	start := time.Now()
	if s := putN(t, master.st, "TopicSync", 0, 1, 100)[0]; s != commitlog.FlushSlaveTimeout {
		t.Fatalf("put: %v, want FLUSH_SLAVE_TIMEOUT", s)
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Fatalf("timed out after %v, before syncFlushTimeout", d)
	}
}

// TestHASyncMasterSlaveAheadIsNoAck: a slave whose first report is beyond
// the master's max offset (its tail diverged, or the master lost data) does
// not acknowledge anything (apache/rocketmq #1155, #3015), and the master
// answers with a header at its own max offset.
func TestHASyncMasterSlaveAheadIsNoAck(t *testing.T) {
	master := startNode(t, "", store.SyncMaster)
	master.cfg.SyncFlushTimeout = 300
	c := rawSlave(t, master.haAddr())
	if _, err := c.Write(AppendReport(nil, 1<<40)); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	h, _, err := NewTransferReader(c, 0).Next()
	if err != nil {
		t.Fatal(err)
	}
	if h.PhyOffset != 0 || h.BodySize != 0 {
		t.Fatalf("first header %+v, want a heartbeat at the master's max 0", h)
	}
	if s := putN(t, master.st, "TopicSync", 0, 1, 100)[0]; s != commitlog.FlushSlaveTimeout {
		t.Fatalf("put: %v, want FLUSH_SLAVE_TIMEOUT", s)
	}
	if got := master.ha.Push2SlaveMaxOffset(); got != 0 {
		t.Fatalf("push2SlaveMaxOffset %d after a report beyond the master", got)
	}
}

// TestHAMasterStream drives the master with a raw slave: the stream is
// contiguous CommitLog bytes, heartbeats come when idle, acks raise
// push2SlaveMaxOffset, a later report beyond the master's max closes the
// connection.
func TestHAMasterStream(t *testing.T) {
	// The raw slave reports only when told to, so housekeeping must not
	// drop it while a loaded (-race) machine streams: heartbeats stay fast,
	// housekeeping is left long (TestHAMasterHousekeeping covers it).
	master := startNode(t, "", store.AsyncMaster, func(c *Config) {
		c.HeartbeatInterval = 100 * time.Millisecond
		c.HousekeepingInterval = 20 * time.Second
	})
	mustPutN(t, master.st, "TopicRaw", 0, 40, 200)
	max := master.st.MaxPhyOffset()
	c := rawSlave(t, master.haAddr())
	if _, err := c.Write(AppendReport(nil, 0)); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	tr := NewTransferReader(c, 0)
	var got []byte
	heartbeats := 0
	for next := int64(0); heartbeats < 2; {
		h, b, err := tr.Next()
		if err != nil {
			t.Fatal(err)
		}
		if h.PhyOffset != next {
			t.Fatalf("transfer at %d, expected %d", h.PhyOffset, next)
		}
		if h.BodySize == 0 && next == max {
			heartbeats++
		}
		got = append(got, b...)
		next += int64(len(b))
	}
	if !bytes.Equal(got, commitLogBytes(t, master.st, 0, max)) {
		t.Fatal("streamed bytes differ from the master's CommitLog")
	}
	if _, err := c.Write(AppendReport(nil, max)); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, 5*time.Second, func() error {
		if p := master.ha.Push2SlaveMaxOffset(); p != max {
			return fmt.Errorf("push2SlaveMaxOffset %d, want %d", p, max)
		}
		return nil
	})
	if _, err := c.Write(AppendReport(nil, max+1)); err != nil {
		t.Fatal(err)
	}
	expectClosed(t, c, tr)
	if p := master.ha.Push2SlaveMaxOffset(); p != max {
		t.Fatalf("push2SlaveMaxOffset moved to %d on a report beyond the master", p)
	}
}

// expectClosed reads until the peer closes the connection.
func expectClosed(t *testing.T, c net.Conn, tr *TransferReader) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		_, _, err := tr.Next()
		if err == nil {
			continue
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatal("connection still open")
		}
		return
	}
}

// TestHAMasterHousekeeping: a slave that stops reporting is dropped after
// haHousekeepingInterval.
func TestHAMasterHousekeeping(t *testing.T) {
	master := startNode(t, "", store.AsyncMaster, shortTimeouts)
	c := rawSlave(t, master.haAddr())
	// Taken before the write: the master reads the report, and arms its
	// deadline from then, no earlier than this.
	start := time.Now()
	if _, err := c.Write(AppendReport(nil, 0)); err != nil {
		t.Fatal(err)
	}
	expectClosed(t, c, NewTransferReader(c, 0))
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Fatalf("closed after %v, before haHousekeepingInterval", d)
	}
	wait.Eventually(t, 5*time.Second, func() error {
		if n := master.ha.ConnectionCount(); n != 0 {
			return fmt.Errorf("%d connections left", n)
		}
		return nil
	})
}

// TestHASlaveReplaysJavaMasterStream: our slave, fed the master -> slave
// stream recorded from Apache RocketMQ 4.9.8, rebuilds exactly the bytes
// the Java master sent and reports its offsets as 8-byte values.
func TestHASlaveReplaysJavaMasterStream(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(goldenDir(t), "ha", "json", "conn*-master2slave.bin"))
	if len(files) != 1 {
		t.Skip("golden stream absent")
	}
	stream, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var want []byte
	tr := NewTransferReader(bytes.NewReader(stream), 0)
	for {
		_, b, err := tr.Next()
		if err != nil {
			break
		}
		want = append(want, b...)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	slave := startNode(t, "", store.Slave, shortTimeouts)
	slave.ha.UpdateMasterAddress(ln.Addr().String())
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rr := NewReportReader(c)
	if first, err := rr.Next(); err != nil || first != 0 {
		t.Fatalf("first report %d %v, want 0", first, err)
	}
	if _, err := c.Write(stream); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		v, err := rr.Next()
		if err != nil {
			t.Fatalf("waiting for the report of %d: %v", len(want), err)
		}
		if v == int64(len(want)) {
			break
		}
	}
	if !bytes.Equal(commitLogBytes(t, slave.st, 0, int64(len(want))), want) {
		t.Fatal("slave CommitLog differs from the Java master's stream")
	}
	// A header that skips ahead of the slave's max closes the connection.
	if _, err := c.Write(AppendTransferHeader(nil, TransferHeader{PhyOffset: int64(len(want)) + 100})); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.Copy(io.Discard, c); err != nil {
		t.Fatalf("slave did not close the connection: %v", err)
	}
}

// TestHASyncMasterSlaveFallenBehind: a connected slave more than
// haSlaveFallbehindMax behind the append position makes sends fail with
// SLAVE_NOT_AVAILABLE at once; once it catches up, a send it acknowledges
// succeeds.
func TestHASyncMasterSlaveFallenBehind(t *testing.T) {
	master := startNode(t, "", store.SyncMaster, func(c *Config) { c.SlaveFallbehindMax = 1000 })
	for i, s := range putN(t, master.st, "TopicSync", 0, 10, 300) { // stored, no slave yet
		if s != commitlog.SlaveNotAvailable {
			t.Fatalf("put %d: %v", i, s)
		}
	}
	c := rawSlave(t, master.haAddr())
	if _, err := c.Write(AppendReport(nil, 0)); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, 5*time.Second, func() error {
		if master.ha.ConnectionCount() == 0 {
			return errors.New("not connected")
		}
		return nil
	})
	if s := putN(t, master.st, "TopicSync", 10, 1, 300)[0]; s != commitlog.SlaveNotAvailable {
		t.Fatalf("put with the slave %d bytes behind: %v", master.st.MaxPhyOffset(), s)
	}
	if _, err := c.Write(AppendReport(nil, master.st.MaxPhyOffset())); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, 5*time.Second, func() error {
		if master.ha.Push2SlaveMaxOffset() != master.st.MaxPhyOffset() {
			return errors.New("ack not seen yet")
		}
		return nil
	})
	res := make(chan commitlog.PutMessageStatus, 1)
	go func() { res <- master.st.PutMessage(newMsg("TopicSync", 0, body(11, 300))).Status }()
	wait.Eventually(t, 5*time.Second, func() error {
		if master.ha.group.pending() == 0 {
			return errors.New("put not waiting for the slave yet")
		}
		return nil
	})
	if _, err := c.Write(AppendReport(nil, master.st.MaxPhyOffset())); err != nil {
		t.Fatal(err)
	}
	if s := <-res; s != commitlog.PutOK {
		t.Fatalf("put acknowledged by the caught-up slave: %v", s)
	}
}

// TestHASyncMasterPutWakesWritersOnce: a SYNC_MASTER put wakes the
// transfer writers once, in IsSlaveOK right after its append; the broker's
// per-message NotifyAppend for that same put (its dispatch) wakes nobody,
// while one for a put that did not pass IsSlaveOK (ASYNC, or WAIT=false)
// still does.
func TestHASyncMasterPutWakesWritersOnce(t *testing.T) {
	m := startNode(t, "", store.AsyncMaster) // IsSlaveOK is called by hand, as the CommitLog would
	c := &connection{s: m.ha, wake: make(chan struct{}, 1)}
	m.ha.connMu.Lock()
	m.ha.conns[c] = struct{}{}
	m.ha.connMu.Unlock()
	t.Cleanup(func() { // before the node's stop, which closes connections
		m.ha.connMu.Lock()
		delete(m.ha.conns, c)
		m.ha.connMu.Unlock()
	})
	woken := func() bool {
		select {
		case <-c.wake:
			return true
		default:
			return false
		}
	}

	mustPutN(t, m.st, "TopicWake", 0, 1, 64)
	m.ha.IsSlaveOK(m.st.MaxPhyOffset())
	if !woken() {
		t.Fatal("IsSlaveOK did not wake the writer")
	}
	m.ha.NotifyAppend() // the dispatch of the same put
	if woken() {
		t.Fatal("the dispatch of a put IsSlaveOK already announced woke the writer again")
	}

	mustPutN(t, m.st, "TopicWake", 1, 1, 64) // not announced by IsSlaveOK
	m.ha.NotifyAppend()
	if !woken() {
		t.Fatal("the dispatch of an unannounced put did not wake the writer")
	}
}
