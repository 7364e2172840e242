package ha

// Service mirrors Java HAService (4.9.8): the accept loop of the HA port,
// the table of master-side connections, push2SlaveMaxOffset, the
// GroupTransferService hook for SYNC_MASTER and the slave's HAClient.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/store"
)

// Service is the HA service of one broker. Every role runs all of it, as
// Java does: the listener (a slave listens too), the client (idle until it
// has a master address) and, on a SYNC_MASTER, the replica waiter.
type Service struct {
	cfg   Config
	st    store.MessageStore
	lg    *zap.Logger
	group *GroupTransferService

	ln         net.Listener
	push2Slave atomic.Int64 // highest offset a slave acknowledged (never above the master's max)
	wokenTo    atomic.Int64 // CommitLog end IsSlaveOK last woke the writers for; -1 after ChangeToSlave

	connMu sync.RWMutex
	conns  map[*connection]struct{}

	clientAddr  atomic.Pointer[string]       // master HA address (slave side)
	clientKick  chan struct{}                // buffered(1): the master address changed
	clientMu    sync.Mutex                   // guards clientConn and clientDone
	clientConn  net.Conn                     // the slave's live connection, closed on address change
	clientDone  chan struct{}                // closed when the current session ends; nil when none
	onConnected atomic.Pointer[func(string)] // SetOnMasterConnected

	goMu     sync.Mutex     // guards stopping and wg.Add
	stopping bool           // set by Shutdown; goFunc refuses then
	wg       sync.WaitGroup // every goroutine of the service
	stopCh   chan struct{}  // closed by Shutdown
	stopCtx  context.Context
	cancel   context.CancelFunc // cancels stopCtx in Shutdown

	started  atomic.Bool
	shutdown atomic.Bool

	ctl ctlState // controller mode (controller.go, syncstateset.go)
}

// New allocates the service for st; it starts nothing.
func New(st store.MessageStore, cfg Config, lg *zap.Logger) (*Service, error) {
	if st == nil {
		return nil, errors.New("ha: nil store")
	}
	if lg == nil {
		lg = zap.NewNop()
	}
	cfg.setDefaults()
	s := &Service{
		cfg:        cfg,
		st:         st,
		lg:         lg,
		conns:      make(map[*connection]struct{}),
		clientKick: make(chan struct{}, 1),
		stopCh:     make(chan struct{}),
	}
	s.stopCtx, s.cancel = context.WithCancel(context.Background())
	s.group = newGroupTransferService(s.push2Slave.Load)
	s.ctl.sss.init()
	s.ctl.allAck = newGroupTransferService(s.allAckOffset)
	s.ctl.localID.Store(-1)
	return s, nil
}

// Start binds the HA port, starts the accept loop, the slave client and,
// on a SYNC_MASTER, installs the replica waiter in the CommitLog.
func (s *Service) Start() error {
	if !s.started.CompareAndSwap(false, true) {
		return errors.New("ha: already started")
	}
	ln, err := net.Listen("tcp", s.cfg.ListenAddr)
	if err != nil {
		return fmt.Errorf("ha: listen %s: %w", s.cfg.ListenAddr, err)
	}
	s.ln = ln
	s.goFunc(s.acceptLoop)
	s.goFunc(s.group.run(s.stopCh))
	s.goFunc(s.ctl.allAck.run(s.stopCh))
	s.goFunc(s.syncStateSetNotifier)
	s.goFunc(s.clientLoop)
	if s.cfg.SyncMaster {
		s.st.CommitLog().SetReplicaWaiter(s)
	}
	s.lg.Info("ha service started", zap.String("haListenAddr", ln.Addr().String()), zap.Bool("syncMaster", s.cfg.SyncMaster))
	return nil
}

// Addr is the bound HA address (nil before Start).
func (s *Service) Addr() net.Addr {
	if s.ln == nil {
		return nil
	}
	return s.ln.Addr()
}

// Shutdown closes the listener, every connection and the client, fails
// pending SYNC_MASTER waits and waits for the goroutines. Idempotent.
func (s *Service) Shutdown(ctx context.Context) error {
	if !s.shutdown.CompareAndSwap(false, true) {
		return nil
	}
	if (s.cfg.SyncMaster || s.ctl.master.Load()) && s.started.Load() {
		s.st.CommitLog().SetReplicaWaiter(nil)
	}
	s.goMu.Lock()
	s.stopping = true
	close(s.stopCh)
	s.cancel()
	s.goMu.Unlock()
	if s.ln != nil {
		_ = s.ln.Close()
	}
	s.closeClientConn()
	s.connMu.Lock()
	for c := range s.conns {
		c.close()
	}
	s.connMu.Unlock()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = fmt.Errorf("ha: goroutines still running: %w", ctx.Err())
	}
	// After the run loops' last sweep (which answers what is acknowledged),
	// fail the rest and any wait that passed WaitReplicated's shutdown
	// check just before the flag was set.
	s.group.close()
	s.ctl.allAck.close()
	if err != nil {
		return err
	}
	s.lg.Info("ha service stopped")
	return nil
}

func (s *Service) goFunc(f func()) bool {
	s.goMu.Lock()
	defer s.goMu.Unlock()
	if s.stopping {
		return false
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		f()
	}()
	return true
}

// acceptLoop is Java's AcceptSocketService: one connection per slave.
func (s *Service) acceptLoop() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			select {
			case <-s.stopCh:
				return
			default:
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			s.lg.Error("ha accept failed", zap.Error(err))
			return
		}
		s.addConnection(c)
	}
}

func (s *Service) addConnection(nc net.Conn) {
	c := newConnection(s, nc)
	read, write := c.readLoop, c.writeLoop
	if s.ctl.enabled.Load() {
		c.auto = newAutoConnState()
		read, write = c.autoReadLoop, c.autoWriteLoop
	}
	s.connMu.Lock()
	s.conns[c] = struct{}{}
	s.connMu.Unlock()
	s.lg.Info("ha slave connected", zap.String("remoteAddr", c.addr))
	if !s.goFunc(read) {
		s.removeConnection(c)
		return
	}
	if !s.goFunc(write) {
		c.close()
	}
}

func (s *Service) removeConnection(c *connection) {
	c.close()
	s.connMu.Lock()
	_, ok := s.conns[c]
	delete(s.conns, c)
	s.connMu.Unlock()
	if ok {
		s.lg.Info("ha slave connection closed", zap.String("remoteAddr", c.addr), zap.Int64("slaveAckOffset", c.ackOffset.Load()))
		if id := c.slaveID.Load(); id >= 0 {
			s.onSlaveGone(id)
		}
	}
}

// ConnectionCount is the number of connected slaves.
func (s *Service) ConnectionCount() int {
	s.connMu.RLock()
	defer s.connMu.RUnlock()
	return len(s.conns)
}

// Push2SlaveMaxOffset is the highest offset any slave acknowledged.
func (s *Service) Push2SlaveMaxOffset() int64 { return s.push2Slave.Load() }

// SlaveAckOffsets lists each connected slave's last report by remote
// address.
func (s *Service) SlaveAckOffsets() map[string]int64 {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	m := make(map[string]int64, len(s.conns))
	for c := range s.conns {
		m[c.addr] = c.ackOffset.Load()
	}
	return m
}

// NotifyAppend wakes every connection's writer: the CommitLog grew. The
// broker calls it for each dispatched message. A SYNC_MASTER put already
// woke them in IsSlaveOK, right after its append; when the CommitLog has
// not grown since, the dispatch of that put wakes nobody. Writers also
// poll every 100 ms.
func (s *Service) NotifyAppend() {
	if w := s.wokenTo.Load(); w > 0 && s.st.MaxPhyOffset() == w { // w is 0 on an ASYNC_MASTER: no lookup
		return
	}
	s.wakeWriters()
}

// wakeWriters wakes every connection's writer.
func (s *Service) wakeWriters() {
	s.connMu.RLock()
	for c := range s.conns {
		c.wakeup()
	}
	s.connMu.RUnlock()
}

// notifyTransferSome raises push2SlaveMaxOffset to offset (acknowledged by a
// slave and not beyond the master's own max) and signals the group
// service, whose goroutine answers the waits it covers (Java
// notifyTransferSome); the caller, a connection's reader, does not wait.
func (s *Service) notifyTransferSome(offset int64) {
	for {
		cur := s.push2Slave.Load()
		if offset <= cur {
			return
		}
		if s.push2Slave.CompareAndSwap(cur, offset) {
			s.group.notifyTransferSome()
			return
		}
	}
}

// IsSlaveOK is Java isSlaveOK: at least one slave connected and not more
// than haSlaveFallbehindMax behind masterPutWhere.
func (s *Service) IsSlaveOK(masterPutWhere int64) bool {
	// Record the end before waking: a dispatch that sees it equal to the
	// CommitLog's max may skip its wake, as this one follows. Concurrent
	// puts may store out of order; a smaller value only costs a wake.
	s.wokenTo.Store(masterPutWhere)
	s.wakeWriters()
	if s.allAckMode() {
		return true // 5.x checks the set size before the append instead
	}
	if s.ConnectionCount() == 0 {
		return false
	}
	return masterPutWhere-s.push2Slave.Load() < s.cfg.SlaveFallbehindMax
}

// WaitReplicated calls done(true) once a slave acknowledged offset, or
// done(false) after timeout (GroupTransferService).
func (s *Service) WaitReplicated(offset int64, timeout time.Duration, done func(ok bool)) {
	if s.shutdown.Load() {
		done(false)
		return
	}
	if s.allAckMode() {
		s.ctl.allAck.wait(offset, s.cfg.SlaveTimeout, done)
		return
	}
	s.group.wait(offset, timeout, done)
}

// allAckMode reports whether waiting puts follow allAckInSyncStateSet: a
// controller-mode master with the option on.
func (s *Service) allAckMode() bool { return s.cfg.AllAckInSyncStateSet && s.ctl.master.Load() }
