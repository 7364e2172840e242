package ha

// connection mirrors Java HAConnection: one per slave on the master, with
// a reader of 8-byte offset reports (ReadSocketService) and a writer that
// streams CommitLog bytes behind 12-byte headers (WriteSocketService).

import (
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// writerPoll is how often an idle writer looks for new data without a
// wakeup (Java waits 100 ms on its WaitNotifyObject).
const writerPoll = 100 * time.Millisecond

type connection struct {
	s    *Service
	nc   net.Conn
	addr string

	requestOffset atomic.Int64 // slave's first report; -1 until it arrives
	ackOffset     atomic.Int64 // slave's last report
	slaveID       atomic.Int64 // auto-switch: the slave's broker id from its handshake; -1 before
	auto          *autoConnState

	wake      chan struct{} // buffered(1): new data or the request offset arrived
	closeOnce sync.Once
	done      chan struct{} // closed when the connection closes
}

func newConnection(s *Service, nc net.Conn) *connection {
	c := &connection{s: s, nc: nc, addr: nc.RemoteAddr().String(), wake: make(chan struct{}, 1), done: make(chan struct{})}
	c.requestOffset.Store(-1)
	c.ackOffset.Store(-1)
	c.slaveID.Store(-1)
	return c
}

func (c *connection) wakeup() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (c *connection) close() {
	c.closeOnce.Do(func() {
		close(c.done)
		_ = c.nc.Close()
	})
}

// deadlineReader arms a read deadline of haHousekeepingInterval before every
// read: a slave that sends nothing for that long is dropped.
type deadlineReader struct {
	nc      net.Conn
	timeout time.Duration
}

func (d deadlineReader) Read(p []byte) (int, error) {
	_ = d.nc.SetReadDeadline(time.Now().Add(d.timeout))
	return d.nc.Read(p)
}

func (c *connection) readLoop() {
	defer c.s.removeConnection(c)
	rr := NewReportReader(deadlineReader{nc: c.nc, timeout: c.s.cfg.HousekeepingInterval})
	for {
		v, err := rr.Next()
		if err != nil {
			c.logReadEnd(err)
			return
		}
		if !c.onReport(v) {
			return
		}
	}
}

func (c *connection) logReadEnd(err error) {
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		c.s.lg.Warn("ha housekeeping, slave connection expired", zap.String("remoteAddr", c.addr),
			zap.Duration("haHousekeepingInterval", c.s.cfg.HousekeepingInterval))
	case errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed):
	default:
		select {
		case <-c.done:
		default:
			c.s.lg.Info("ha slave read ended", zap.String("remoteAddr", c.addr), zap.Error(err))
		}
	}
}

// onReport handles one report; false closes the connection. A report beyond
// the master's max offset is never an acknowledgement (apache/rocketmq
// #1155, #3015): as the first report it means the slave's tail diverged
// (the writer then starts at the master's max, which tells our slave to
// truncate); later it closes the connection, as Java does.
func (c *connection) onReport(v int64) bool {
	masterMax := c.s.st.MaxPhyOffset()
	c.ackOffset.Store(v)
	if c.requestOffset.Load() < 0 {
		c.requestOffset.Store(v)
		c.wakeup()
		c.s.lg.Info("ha slave request offset", zap.String("remoteAddr", c.addr), zap.Int64("commitLogOffset", v),
			zap.Int64("masterMaxOffset", masterMax))
		if v > masterMax {
			c.s.lg.Warn("ha slave is ahead of the master, its tail will be truncated", zap.String("remoteAddr", c.addr),
				zap.Int64("slaveOffset", v), zap.Int64("masterMaxOffset", masterMax))
			return true
		}
	} else if v > masterMax {
		c.s.lg.Warn("ha slave offset greater than the master's max offset", zap.String("remoteAddr", c.addr),
			zap.Int64("slaveOffset", v), zap.Int64("masterMaxOffset", masterMax))
		return false
	}
	c.s.notifyTransferSome(v)
	return true
}

// startOffset is where the transfer begins for the slave's request: 0 →
// the start of the master's last CommitLog file (Java); beyond the
// master's max → the master's max (divergent slave tail).
func (c *connection) startOffset(req int64) int64 {
	masterMax := c.s.st.MaxPhyOffset()
	switch {
	case req == 0:
		return max(masterMax-masterMax%c.s.cfg.CommitLogFileSize, 0)
	case req > masterMax:
		return masterMax
	default:
		return req
	}
}

func (c *connection) writeLoop() {
	defer c.s.removeConnection(c)
	for c.requestOffset.Load() < 0 {
		select {
		case <-c.done:
			return
		case <-c.wake:
		}
	}
	w := transferWriter{c: c, next: c.startOffset(c.requestOffset.Load())}
	c.s.lg.Info("ha transfer starts", zap.String("remoteAddr", c.addr), zap.Int64("commitLogOffset", w.next),
		zap.Int64("slaveRequestOffset", c.requestOffset.Load()))
	// The first header goes out at once: it tells the slave where the
	// stream starts (and a divergent slave where to truncate).
	if err := w.heartbeat(); err != nil {
		c.logWriteEnd(err)
		return
	}
	poll := time.NewTimer(writerPoll)
	defer poll.Stop()
	for {
		sent, err := w.sendSome()
		if err != nil {
			c.logWriteEnd(err)
			return
		}
		if sent {
			continue
		}
		if time.Since(w.lastWrite) >= c.s.cfg.HeartbeatInterval {
			if err := w.heartbeat(); err != nil {
				c.logWriteEnd(err)
				return
			}
		}
		poll.Reset(min(writerPoll, c.s.cfg.HeartbeatInterval))
		select {
		case <-c.done:
			return
		case <-c.wake:
		case <-poll.C:
		}
	}
}

func (c *connection) logWriteEnd(err error) {
	select {
	case <-c.done:
	default:
		c.s.lg.Info("ha slave write ended", zap.String("remoteAddr", c.addr), zap.Error(err))
	}
}

// transferWriter is the writer's state: the next offset to send and the
// time of the last write (for heartbeats).
type transferWriter struct {
	c         *connection
	next      int64
	lastWrite time.Time
	hdr       [TransferHeaderSize]byte
}

func (w *transferWriter) write(h TransferHeader, body []byte) error {
	hdr := AppendTransferHeader(w.hdr[:0], h)
	_ = w.c.nc.SetWriteDeadline(time.Now().Add(w.c.s.cfg.HousekeepingInterval))
	bufs := net.Buffers{hdr, body}
	if _, err := bufs.WriteTo(w.c.nc); err != nil {
		return err
	}
	w.lastWrite = time.Now()
	return nil
}

func (w *transferWriter) heartbeat() error {
	return w.write(TransferHeader{PhyOffset: w.next}, nil)
}

// sendSome sends up to haTransferBatchSize bytes from next (never across a
// CommitLog file end); sent is false when there is nothing to send.
func (w *transferWriter) sendSome() (sent bool, err error) {
	buf := w.c.s.st.GetCommitLogData(w.next)
	if buf == nil {
		return false, nil
	}
	defer buf.Release()
	n := min(buf.Size(), w.c.s.cfg.TransferBatchSize)
	if n <= 0 {
		return false, nil
	}
	if err := w.write(TransferHeader{PhyOffset: w.next, BodySize: int32(n)}, buf.Bytes[:n]); err != nil {
		return false, err
	}
	w.next += int64(n)
	return true, nil
}
