package ha

// The slave side of the auto-switch protocol (5.x AutoSwitchHAClient):
// send the handshake with this broker's id, receive the master's epoch
// history, truncate the local CommitLog (and with it the consume queues
// and index) to the last offset both histories share, then append what
// the master streams, recording each epoch the stream enters.

import (
	"errors"
	"fmt"
	"net"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/store/epoch"
)

// ErrNoConsistentPoint is the handshake's failure when the local epoch
// history shares no epoch with the master's: nothing is truncated and the
// client retries (as 5.x does).
var ErrNoConsistentPoint = errors.New("ha: no offset shared with the master's epoch history")

// autoSession is one auto-switch connection to the master.
type autoSession struct {
	s          *Service
	nc         net.Conn
	ef         *epoch.File
	buf        []byte
	start, end int
	handshaken bool
	epoch      int32 // epoch of the last transfer received
	reported   int64
	lastWrite  time.Time
	lastRead   time.Time
	out        [SlaveHandshakeSize]byte
}

func (s *Service) runAutoSwitchSession(addr string, nc net.Conn) error {
	a := &autoSession{s: s, nc: nc, ef: s.ctl.epochs.Load(), buf: make([]byte, clientBufferSize), epoch: -1, reported: -1}
	s.lg.Info("ha connected to master (auto-switch)", zap.String("masterAddr", addr),
		zap.Int64("commitLogOffset", s.st.MaxPhyOffset()), zap.Int32("lastEpoch", a.ef.LastEpoch()))
	cfg := s.cfg
	if err := a.send(AppendSlaveHandshake(a.out[:0], s.ctl.localID.Load(), cfg.SyncFromLastFile, cfg.AsyncLearner)); err != nil {
		return err
	}
	a.lastRead = time.Now()
	err := a.loop(func() {
		if f := s.onConnected.Load(); f != nil {
			(*f)(addr)
		}
	})
	return err
}

func (a *autoSession) send(b []byte) error {
	_ = a.nc.SetWriteDeadline(time.Now().Add(a.s.cfg.HousekeepingInterval))
	if _, err := a.nc.Write(b); err != nil {
		return err
	}
	a.lastWrite = time.Now()
	return nil
}

func (a *autoSession) report(off int64) error {
	if err := a.send(AppendSlaveTransfer(a.out[:0], off)); err != nil {
		return err
	}
	a.reported = off
	return nil
}

func (a *autoSession) loop(onStarted func()) error {
	hb, hk := a.s.cfg.HeartbeatInterval, a.s.cfg.HousekeepingInterval
	for {
		now := time.Now()
		if now.Sub(a.lastRead) > hk {
			return errHousekeeping
		}
		if a.handshaken && now.Sub(a.lastWrite) >= hb {
			if err := a.report(a.s.st.MaxPhyOffset()); err != nil {
				return err
			}
		}
		deadline := a.lastRead.Add(hk)
		if d := a.lastWrite.Add(hb); a.handshaken && d.Before(deadline) {
			deadline = d
		}
		_ = a.nc.SetReadDeadline(deadline)
		if a.end == len(a.buf) {
			a.end = copy(a.buf, a.buf[a.start:a.end])
			a.start = 0
		}
		n, err := a.nc.Read(a.buf[a.end:])
		if n > 0 {
			a.end += n
			a.lastRead = time.Now()
			was := a.handshaken
			if derr := a.dispatch(); derr != nil {
				return derr
			}
			if !was && a.handshaken {
				onStarted()
			}
		}
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
	}
}

// dispatch handles every complete frame buffered, then reports the new
// max offset once.
func (a *autoSession) dispatch() error {
	for {
		f, n, err := ParseMasterFrame(a.buf[a.start:a.end], len(a.buf)-MasterTransferHeaderLen)
		if err != nil {
			return err
		}
		if n == 0 {
			break
		}
		if err := a.onFrame(f); err != nil {
			return err
		}
		a.start += n
	}
	if a.start == a.end {
		a.start, a.end = 0, 0
	}
	if cur := a.s.st.MaxPhyOffset(); a.handshaken && cur > a.reported {
		return a.report(cur)
	}
	return nil
}

func (a *autoSession) onFrame(f MasterFrame) error {
	switch {
	case !a.handshaken && f.State == stateHandshake:
		return a.truncate(f)
	case a.handshaken && f.State == stateTransfer:
		return a.apply(f)
	default:
		return fmt.Errorf("%w: master state %d, handshake done %v", ErrBadFrame, f.State, a.handshaken)
	}
}

// truncate is 5.x doTruncate: cut the local log back to the consistent
// point with the master's history, then report it as the request offset.
func (a *autoSession) truncate(f MasterFrame) error {
	st := a.s.st
	local, localMax := a.ef.Entries(), st.MaxPhyOffset()
	point := localMax
	if len(local) > 0 && localMax > 0 {
		point = epoch.ConsistentPoint(local, localMax, f.Entries, f.Offset)
		if point < 0 {
			return fmt.Errorf("%w: local %v (max %d), master %v (max %d)", ErrNoConsistentPoint, local, localMax,
				f.Entries, f.Offset)
		}
	}
	a.s.lg.Info("ha handshake with master", zap.Int64("masterMaxOffset", f.Offset), zap.Int32("masterEpoch", f.Epoch),
		zap.Int64("slaveMaxOffset", localMax), zap.Int64("truncateOffset", point))
	if point < localMax {
		a.s.lg.Warn("ha truncating the replica's commit log to the point shared with the master",
			zap.Int64("commitLogOffset", point), zap.Int64("slaveMaxOffset", localMax))
		if err := st.TruncateCommitLog(point); err != nil {
			return fmt.Errorf("ha: truncate at %d: %w", point, err)
		}
	}
	if err := a.ef.TruncateSuffixByOffset(point); err != nil { // entries holding no shared data
		return err
	}
	st.SetConfirmOffset(min(st.ConfirmOffset(), st.MaxPhyOffset()))
	a.handshaken = true
	return a.report(st.MaxPhyOffset())
}

// apply appends one transfer at the local max offset and records the
// epoch it belongs to.
func (a *autoSession) apply(f MasterFrame) error {
	st := a.s.st
	local := st.MaxPhyOffset()
	if local != 0 && f.Offset != local {
		return fmt.Errorf("ha: master pushed offset %d, slave max offset is %d", f.Offset, local)
	}
	// The epoch is recorded with its first bytes, not on a heartbeat (5.x
	// records it on either): a master may replace an epoch that wrote
	// nothing by a newer one at the same offset (ChangeToMaster), and a
	// replica must not keep the replaced one.
	if f.Epoch != a.epoch && f.Epoch >= 0 && len(f.Body) > 0 {
		err := a.ef.Append(epoch.Entry{Epoch: f.Epoch, StartOffset: f.EpochStartOffset})
		if err != nil && !errors.Is(err, epoch.ErrNotNewer) {
			return err
		}
		a.epoch = f.Epoch
	}
	if len(f.Body) > 0 {
		if err := st.AppendToCommitLog(f.Offset, f.Body); err != nil {
			return fmt.Errorf("ha: append at %d: %w", f.Offset, err)
		}
	}
	st.SetConfirmOffset(min(f.ConfirmOffset, st.MaxPhyOffset()))
	return nil
}
