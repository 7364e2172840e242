package ha

import (
	"fmt"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/internal/wait"
)

// rawAutoSlave is a replica that completes the auto-switch handshake as
// broker id, reports from and then never reads again; it keeps sending
// that same report every 100 ms (its heartbeat), so it stays connected
// without acknowledging anything new: a stalled SyncStateSet member.
func rawAutoSlave(t *testing.T, addr string, id, from int64) net.Conn {
	t.Helper()
	c := rawSlave(t, addr)
	if _, err := c.Write(AppendSlaveHandshake(nil, id, false, false)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	n := 0
	for {
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		m, err := c.Read(buf[n:])
		if err != nil {
			t.Fatal(err)
		}
		n += m
		f, used, err := ParseMasterFrame(buf[:n], len(buf))
		if err != nil {
			t.Fatal(err)
		}
		if used > 0 {
			if f.State != stateHandshake {
				t.Fatalf("first master frame state %d", f.State)
			}
			break
		}
	}
	if _, err := c.Write(AppendSlaveTransfer(nil, from)); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { // stops when the connection is closed (cleanup or the master)
		defer close(done)
		for {
			time.Sleep(100 * time.Millisecond)
			_ = c.SetWriteDeadline(time.Now().Add(time.Second))
			if _, err := c.Write(AppendSlaveTransfer(nil, from)); err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { _ = c.Close(); <-done })
	return c
}

// proposals records what the master proposes to the controller.
type proposals struct {
	mu   sync.Mutex
	sets [][]int64
}

func (p *proposals) add(s []int64) {
	p.mu.Lock()
	p.sets = append(p.sets, s)
	p.mu.Unlock()
}

func (p *proposals) waitFor(t *testing.T, want []int64) {
	t.Helper()
	wait.Eventually(t, 10*time.Second, func() error {
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, s := range p.sets {
			if slices.Equal(s, want) {
				return nil
			}
		}
		return fmt.Errorf("proposals %v, want %v", p.sets, want)
	})
}

// TestHAControllerSyncStateSetTracking: a replica that caught up is
// proposed into the set; a member that stops acknowledging is shrunk out
// after haMaxTimeSlaveNotCatchup; a member whose connection closes is
// proposed out at once; the set counts a pending proposal until the
// controller's answer; the confirm offset is the smallest member ack.
func TestHAControllerSyncStateSetTracking(t *testing.T) {
	const notCatchup = 300 * time.Millisecond
	a := startCtlNode(t, 1, func(c *Config) { c.MaxTimeSlaveNotCatchup = notCatchup })
	var got proposals
	a.ha.SetOnSyncStateSetChanged(got.add)
	if _, err := a.ha.ChangeToMaster(1); err != nil {
		t.Fatal(err)
	}
	putAll(t, a.st, "TopicSSS", 0, 3, commitlog.SlaveNotAvailable)
	b := startCtlNode(t, 2)
	if err := b.ha.ChangeToSlave(a.haAddr(), 1, 2); err != nil {
		t.Fatal(err)
	}
	got.waitFor(t, []int64{1, 2}) // expand once B holds everything
	if s := a.ha.SyncStateSet(); !slices.Equal(s, []int64{1, 2}) || !a.ha.IsSynchronizingSyncStateSet() {
		t.Fatalf("pending expand: set %v", s)
	}
	a.ha.SetSyncStateSet([]int64{1, 2})
	stalledAt := a.st.MaxPhyOffset()
	stalled := rawAutoSlave(t, a.haAddr(), 3, stalledAt)
	waitSlaveConnected(t, a, 3)
	a.ha.SetSyncStateSet([]int64{1, 2, 3})
	putAll(t, a.st, "TopicSSS", 3, 3, commitlog.PutOK) // B acknowledges (plain SYNC_MASTER rule)
	if c, m := a.ha.ConfirmOffset(), a.st.MaxPhyOffset(); c != m {
		t.Fatalf("without allAck the confirm offset is the max offset: %d vs %d", c, m)
	}
	if c := a.st.ConfirmOffset(); c != stalledAt {
		t.Fatalf("set confirm offset %d, want member 3's ack %d", c, stalledAt)
	}
	time.Sleep(notCatchup)      // let member 3 fall behind for haMaxTimeSlaveNotCatchup
	waitSlaveConnected(t, a, 3) // still connected: the shrink below is for lagging, not for leaving
	wait.Eventually(t, 5*time.Second, func() error {
		mustPutN(t, a.st, "TopicSSS", 10, 1, 100) // B keeps catching up
		if s, changed := a.ha.MaybeShrinkSyncStateSet(); !changed || !slices.Equal(s, []int64{1, 2}) {
			return fmt.Errorf("shrink proposal %v changed=%v", s, changed)
		}
		return nil
	})
	if s := a.ha.SyncStateSet(); !slices.Equal(s, []int64{1, 2, 3}) {
		t.Fatalf("before the controller answers the set is the union, got %v", s)
	}
	a.ha.SetSyncStateSet([]int64{1, 2})
	if s, changed := a.ha.MaybeShrinkSyncStateSet(); changed {
		t.Fatalf("caught-up B shrunk: %v", s)
	}
	_ = stalled.Close()
	if err := b.ha.stopClient(t.Context()); err != nil { // B's connection closes
		t.Fatal(err)
	}
	got.waitFor(t, []int64{1})
}
