package ha

// The slave side, mirroring Java HAService.HAClient: connect to the
// master's HA address, report the local max offset, append what arrives at
// the same physical offsets, report again.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"go.uber.org/zap"
)

// dialTimeout bounds the connect to the master (Java RemotingUtil.connect).
const dialTimeout = 5 * time.Second

// clientBufferSize is the slave's read buffer (Java READ_MAX_BUFFER_SIZE).
const clientBufferSize = 4 << 20

var errHousekeeping = errors.New("ha: master sent nothing within haHousekeepingInterval")

// UpdateMasterAddress points the slave at the master's HA address. A new
// address drops the current connection and reconnects at once; "" stops
// replicating. In controller mode it is 5.x's updateHaMasterAddress: the
// broker learns the HA address of the master the controller named from
// the name server, after ChangeToSlave.
func (s *Service) UpdateMasterAddress(addr string) { s.setMasterAddress(addr) }

// setMasterAddress is UpdateMasterAddress in every mode.
func (s *Service) setMasterAddress(addr string) {
	if cur := s.clientAddr.Load(); cur != nil && *cur == addr {
		return
	}
	old := s.MasterAddress()
	s.clientAddr.Store(&addr)
	s.lg.Info("ha master address updated", zap.String("old", old), zap.String("new", addr))
	s.closeClientConn()
	select {
	case s.clientKick <- struct{}{}:
	default:
	}
}

// SetOnMasterConnected installs f, called (on the client goroutine, which it
// must not block for long) each time the slave's connection to a master is
// established. The broker uses it to reconcile metadata with a master that
// came back.
func (s *Service) SetOnMasterConnected(f func(haAddr string)) {
	if f == nil {
		s.onConnected.Store(nil)
		return
	}
	s.onConnected.Store(&f)
}

// MasterAddress is the HA address the slave replicates from ("" if none).
func (s *Service) MasterAddress() string {
	if p := s.clientAddr.Load(); p != nil {
		return *p
	}
	return ""
}

// MasterConnected reports whether the slave has a live HA connection.
func (s *Service) MasterConnected() bool {
	s.clientMu.Lock()
	defer s.clientMu.Unlock()
	return s.clientConn != nil
}

func (s *Service) closeClientConn() {
	s.clientMu.Lock()
	if s.clientConn != nil {
		_ = s.clientConn.Close()
	}
	s.clientMu.Unlock()
}

func (s *Service) setClientConn(c net.Conn) bool {
	s.clientMu.Lock()
	defer s.clientMu.Unlock()
	select {
	case <-s.stopCh:
		return false
	default:
	}
	s.clientConn = c
	s.clientDone = make(chan struct{})
	return true
}

// clientLoop connects whenever an address is known, replicates until the
// connection fails, and retries every ReconnectInterval (or at once when
// the address changes).
func (s *Service) clientLoop() {
	for {
		addr := s.MasterAddress()
		if addr != "" {
			err := s.replicate(addr)
			select {
			case <-s.stopCh:
				return
			default:
			}
			s.lg.Info("ha connection to master ended", zap.String("masterAddr", addr), zap.Error(err))
		}
		t := time.NewTimer(s.cfg.ReconnectInterval)
		select {
		case <-s.stopCh:
			t.Stop()
			return
		case <-s.clientKick:
		case <-t.C:
		}
		t.Stop()
	}
}

// replicate runs one connection to the master.
func (s *Service) replicate(addr string) error {
	ctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
	stopWatch := context.AfterFunc(s.stopCtx, cancel) // Shutdown aborts a dial in progress
	nc, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	stopWatch()
	cancel()
	if err != nil {
		return err
	}
	if !s.setClientConn(nc) {
		_ = nc.Close()
		return nil
	}
	defer func() {
		_ = nc.Close()
		s.clientMu.Lock()
		s.clientConn = nil
		close(s.clientDone)
		s.clientDone = nil
		s.clientMu.Unlock()
	}()
	if s.MasterAddress() != addr { // changed while dialing
		return nil
	}
	if s.ctl.enabled.Load() {
		return s.runAutoSwitchSession(addr, nc)
	}
	s.lg.Info("ha connected to master", zap.String("masterAddr", addr), zap.Int64("commitLogOffset", s.st.MaxPhyOffset()))
	r := &replicaSession{s: s, nc: nc, buf: make([]byte, clientBufferSize), first: true}
	r.onStarted = func() {
		if f := s.onConnected.Load(); f != nil {
			(*f)(addr)
		}
	}
	return r.run()
}

// replicaSession is the state of one slave connection.
type replicaSession struct {
	s          *Service
	nc         net.Conn
	buf        []byte
	start, end int // unconsumed bytes buf[start:end]
	first      bool
	reported   int64
	lastWrite  time.Time
	lastRead   time.Time
	report     [ReportSize]byte
	onStarted  func() // called once the first report went out
}

func (r *replicaSession) run() error {
	r.lastRead = time.Now()
	if err := r.sendReport(r.s.st.MaxPhyOffset()); err != nil {
		return err
	}
	r.onStarted()
	hb, hk := r.s.cfg.HeartbeatInterval, r.s.cfg.HousekeepingInterval
	for {
		now := time.Now()
		if now.Sub(r.lastRead) > hk {
			return errHousekeeping
		}
		if now.Sub(r.lastWrite) >= hb {
			if err := r.sendReport(r.s.st.MaxPhyOffset()); err != nil {
				return err
			}
		}
		deadline := r.lastWrite.Add(hb)
		if d := r.lastRead.Add(hk); d.Before(deadline) {
			deadline = d
		}
		_ = r.nc.SetReadDeadline(deadline)
		if r.end == len(r.buf) {
			r.compact()
		}
		n, err := r.nc.Read(r.buf[r.end:])
		if n > 0 {
			r.end += n
			r.lastRead = time.Now()
			if err := r.dispatch(); err != nil {
				return err
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

func (r *replicaSession) compact() {
	r.end = copy(r.buf, r.buf[r.start:r.end])
	r.start = 0
}

func (r *replicaSession) sendReport(off int64) error {
	_ = r.nc.SetWriteDeadline(time.Now().Add(r.s.cfg.HousekeepingInterval))
	if _, err := r.nc.Write(AppendReport(r.report[:0], off)); err != nil {
		return err
	}
	r.reported = off
	r.lastWrite = time.Now()
	return nil
}

// dispatch applies every complete transfer buffered, then reports the new
// max offset once.
func (r *replicaSession) dispatch() error {
	for {
		h, body, n, err := ParseTransfer(r.buf[r.start:r.end], len(r.buf)-TransferHeaderSize)
		if err != nil {
			return err
		}
		if n == 0 {
			break
		}
		if err := r.apply(h, body); err != nil {
			return err
		}
		r.start += n
	}
	if r.start == r.end {
		r.start, r.end = 0, 0
	}
	if cur := r.s.st.MaxPhyOffset(); cur > r.reported {
		return r.sendReport(cur)
	}
	return nil
}

// apply checks one transfer's offset against the local max and appends its
// body. The first header of a connection below the local max means the
// local tail diverged from the master: it is truncated.
func (r *replicaSession) apply(h TransferHeader, body []byte) error {
	local := r.s.st.MaxPhyOffset()
	if local != 0 && h.PhyOffset != local {
		if !r.first || h.PhyOffset > local {
			return fmt.Errorf("ha: master pushed offset %d, slave max offset is %d", h.PhyOffset, local)
		}
		r.s.lg.Warn("ha truncating the slave's divergent commit log tail", zap.Int64("commitLogOffset", h.PhyOffset),
			zap.Int64("slaveMaxOffset", local))
		if err := r.s.st.TruncateCommitLog(h.PhyOffset); err != nil {
			return fmt.Errorf("ha: truncate at %d: %w", h.PhyOffset, err)
		}
		r.reported = min(r.reported, h.PhyOffset)
	}
	r.first = false
	if len(body) == 0 {
		return nil
	}
	if err := r.s.st.AppendToCommitLog(h.PhyOffset, body); err != nil {
		return fmt.Errorf("ha: append at %d: %w", h.PhyOffset, err)
	}
	return nil
}
