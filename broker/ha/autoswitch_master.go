package ha

// The master side of the auto-switch protocol (5.x AutoSwitchHAConnection):
// answer the slave's handshake with the epoch history, then stream the
// CommitLog from the offset the slave reports, each transfer inside one
// epoch and labelled with it, and track the slave's acknowledgements for
// the SyncStateSet.

import (
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/store/epoch"
)

// autoConnState is the auto-switch part of a master-side connection.
type autoConnState struct {
	handshake        chan struct{} // buffered(1): the slave's handshake arrived
	syncFromLastFile atomic.Bool
	asyncLearner     atomic.Bool
	lastMasterMax    atomic.Int64 // master max offset at the last transfer (-1 before)
	lastTransfer     atomic.Int64 // unix ms of the last transfer
}

func newAutoConnState() *autoConnState {
	a := &autoConnState{handshake: make(chan struct{}, 1)}
	a.lastMasterMax.Store(-1)
	return a
}

var errSlaveAhead = errors.New("ha: slave reported an offset beyond the master's max")

func (c *connection) autoReadLoop() {
	defer c.s.removeConnection(c)
	r := deadlineReader{nc: c.nc, timeout: c.s.cfg.HousekeepingInterval}
	buf := make([]byte, 4096)
	n := 0
	for {
		m, err := r.Read(buf[n:])
		n += m
		for {
			f, used, perr := ParseSlaveFrame(buf[:n])
			if perr != nil {
				c.logReadEnd(perr)
				return
			}
			if used == 0 {
				break
			}
			n = copy(buf, buf[used:n])
			if ferr := c.onSlaveFrame(f); ferr != nil {
				c.logReadEnd(ferr)
				return
			}
		}
		if err != nil {
			c.logReadEnd(err)
			return
		}
	}
}

func (c *connection) onSlaveFrame(f SlaveFrame) error {
	if f.State == stateHandshake {
		c.slaveID.Store(f.BrokerID)
		c.auto.syncFromLastFile.Store(f.SyncFromLastFile)
		c.auto.asyncLearner.Store(f.AsyncLearner)
		c.s.lg.Info("ha slave handshake", zap.String("remoteAddr", c.addr), zap.Int64("brokerId", f.BrokerID),
			zap.Bool("syncFromLastFile", f.SyncFromLastFile), zap.Bool("asyncLearner", f.AsyncLearner))
		select {
		case c.auto.handshake <- struct{}{}:
		default:
		}
		return nil
	}
	return c.onAutoReport(f.MaxOffset)
}

// onAutoReport handles a TRANSFER report: the first fixes where the
// transfer starts, each one is an acknowledgement.
func (c *connection) onAutoReport(v int64) error {
	s := c.s
	masterMax := s.st.MaxPhyOffset()
	if v > masterMax {
		return fmt.Errorf("%w: slave %d, master %d", errSlaveAhead, v, masterMax)
	}
	c.ackOffset.Store(v)
	if c.requestOffset.Load() < 0 {
		c.requestOffset.Store(v)
		c.wakeup()
	}
	id := c.slaveID.Load()
	if id >= 0 && !c.auto.asyncLearner.Load() && v >= c.auto.lastMasterMax.Load() && s.ctl.master.Load() {
		t := time.UnixMilli(c.auto.lastTransfer.Load())
		if v == masterMax {
			t = time.Now()
		}
		s.updateCaughtUp(id, t)
		s.maybeExpand(id, v)
	}
	if s.ctl.master.Load() {
		s.st.SetConfirmOffset(s.computeConfirmOffset())
	}
	s.notifyTransferSome(v)
	s.ctl.allAck.notifyTransferSome()
	return nil
}

func (c *connection) autoWriteLoop() {
	defer c.s.removeConnection(c)
	select {
	case <-c.done:
		return
	case <-c.auto.handshake:
	}
	if !c.waitMaster() {
		return
	}
	ef := c.s.ctl.epochs.Load()
	entries := ef.Entries()
	hs := AppendMasterHandshake(nil, c.s.st.MaxPhyOffset(), entries)
	_ = c.nc.SetWriteDeadline(time.Now().Add(c.s.cfg.HousekeepingInterval))
	if _, err := c.nc.Write(hs); err != nil {
		c.logWriteEnd(err)
		return
	}
	for c.requestOffset.Load() < 0 {
		select {
		case <-c.done:
			return
		case <-c.wake:
		}
	}
	w := autoWriter{c: c, ef: ef, next: c.autoStartOffset(c.requestOffset.Load())}
	c.s.lg.Info("ha transfer starts", zap.String("remoteAddr", c.addr), zap.Int64("commitLogOffset", w.next),
		zap.Int64("slaveRequestOffset", c.requestOffset.Load()), zap.Int64("brokerId", c.slaveID.Load()))
	if err := w.run(); err != nil {
		c.logWriteEnd(err)
	}
}

// waitMaster holds the handshake answer until this broker is the master
// (5.x answers whatever its role): a replica told about its new master
// before the master finished ChangeToMaster must not copy from a replica.
// The slave's silence meanwhile ends the connection after
// haHousekeepingInterval, and it reconnects.
func (c *connection) waitMaster() bool {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for !c.s.ctl.master.Load() {
		select {
		case <-c.done:
			return false
		case <-t.C:
		}
	}
	return true
}

// autoStartOffset: a slave with nothing starts at the master's first
// CommitLog offset (its last file's start with syncFromLastFile).
func (c *connection) autoStartOffset(req int64) int64 {
	if req != 0 {
		return req
	}
	if c.auto.syncFromLastFile.Load() {
		m := c.s.st.MaxPhyOffset()
		return max(m-m%c.s.cfg.CommitLogFileSize, 0)
	}
	return max(c.s.st.MinPhyOffset(), 0)
}

// autoWriter streams the CommitLog to one slave.
type autoWriter struct {
	c         *connection
	ef        *epoch.File
	next      int64
	lastWrite time.Time
	hdr       [MasterTransferHeaderLen]byte
}

func (w *autoWriter) run() error {
	c := w.c
	if err := w.heartbeat(); err != nil { // tells the slave the stream's epoch at once
		return err
	}
	poll := time.NewTimer(writerPoll)
	defer poll.Stop()
	for {
		sent, err := w.sendSome()
		if err != nil {
			return err
		}
		if sent {
			continue
		}
		if id := c.slaveID.Load(); id >= 0 && c.ackOffset.Load() == w.next {
			c.s.updateCaughtUp(id, time.Now()) // everything sent is acknowledged
		}
		if time.Since(w.lastWrite) >= c.s.cfg.HeartbeatInterval {
			if err := w.heartbeat(); err != nil {
				return err
			}
		}
		poll.Reset(min(writerPoll, c.s.cfg.HeartbeatInterval))
		select {
		case <-c.done:
			return nil
		case <-c.wake:
		case <-poll.C:
		}
	}
}

// entryAt is the epoch that wrote offset: the one holding it, or the
// first one for data older than the epoch history.
func (w *autoWriter) entryAt(off int64) epoch.Entry {
	if e, ok := w.ef.FindByOffset(off); ok {
		return e
	}
	es := w.ef.Entries()
	if len(es) > 0 && off < es[0].StartOffset {
		return es[0]
	}
	if len(es) > 0 {
		return es[len(es)-1]
	}
	return epoch.Entry{Epoch: -1, EndOffset: 1<<63 - 1}
}

func (w *autoWriter) write(hdr, body []byte) error {
	_ = w.c.nc.SetWriteDeadline(time.Now().Add(w.c.s.cfg.HousekeepingInterval))
	bufs := net.Buffers{hdr, body}
	if _, err := bufs.WriteTo(w.c.nc); err != nil {
		return err
	}
	w.lastWrite = time.Now()
	return nil
}

func (w *autoWriter) heartbeat() error {
	e := w.entryAt(w.next)
	return w.write(AppendMasterTransferHeader(w.hdr[:0], w.next, 0, e, w.c.s.ConfirmOffset()), nil)
}

// sendSome sends up to haTransferBatchSize bytes from next, never across a
// CommitLog file end nor an epoch boundary.
func (w *autoWriter) sendSome() (bool, error) {
	c := w.c
	buf := c.s.st.GetCommitLogData(w.next)
	if buf == nil {
		return false, nil
	}
	defer buf.Release()
	n := int64(min(buf.Size(), c.s.cfg.TransferBatchSize))
	e := w.entryAt(w.next)
	if e.EndOffset > w.next {
		n = min(n, e.EndOffset-w.next)
	}
	if n <= 0 {
		return false, nil
	}
	c.auto.lastMasterMax.Store(c.s.st.MaxPhyOffset())
	c.auto.lastTransfer.Store(time.Now().UnixMilli())
	hdr := AppendMasterTransferHeader(w.hdr[:0], w.next, int(n), e, c.s.ConfirmOffset())
	if err := w.write(hdr, buf.Bytes[:n]); err != nil {
		return false, err
	}
	w.next += n
	return true, nil
}
