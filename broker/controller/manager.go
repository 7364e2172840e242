package controller

// ReplicasManager: the broker's side of 5.x controller mode (Apache
// 5.3.3 broker/controller/ReplicasManager). One goroutine (run) owns the
// role: it obtains the broker id (GET_NEXT_BROKER_ID, APPLY_BROKER_ID,
// REGISTER_BROKER_TO_CONTROLLER, persisted in brokerIdentity), asks for an
// election when the group has no master, polls GET_REPLICA_INFO, applies
// NOTIFY_BROKER_ROLE_CHANGED, and as master reports SyncStateSet changes.
// A second goroutine (heartbeat) sends BROKER_HEARTBEAT and enforces the
// master's lease (fencing).

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	ctlclient "github.com/rocketmq-go/rmq/controller/client"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// Host is what the manager needs from the broker. ChangeToMaster and
// ChangeToSlave are called only from the manager's goroutine, one at a
// time; an error leaves the manager's view unchanged, so the next poll
// retries.
type Host interface {
	// ChangeToMaster makes the broker (controller id selfID) the group's
	// master in epoch: store and HA role, brokerId 0 at the name server,
	// master-only services.
	ChangeToMaster(ctx context.Context, epoch int32, selfID int64) error
	// ChangeToSlave makes the broker a replica with id selfID of the master
	// masterID at masterAddr (broker address) in epoch.
	ChangeToSlave(ctx context.Context, masterAddr string, masterID int64, epoch int32, selfID int64) error
	// SetSyncStateSet tells the HA layer the set in force (master).
	SetSyncStateSet(ids []int64)
	// ShrinkSyncStateSet is the HA layer's periodic check: the set without
	// the members that fell behind, and whether that is a change. Growth
	// arrives through Manager.Propose.
	ShrinkSyncStateSet() (proposed []int64, changed bool)
	// SetFenced stops (true) or resumes (false) acknowledging writes.
	SetFenced(fenced bool)
	// ReplicaState is what heartbeats carry: the last epoch of the epoch
	// file, the CommitLog's max physical offset and the confirm offset.
	ReplicaState() (lastEpoch int32, maxPhyOffset, confirmOffset int64)
}

// Config is the manager's part of BrokerConfig (5.x keys in comments).
type Config struct {
	ClusterName  string // brokerClusterName
	BrokerName   string // brokerName
	BrokerAddr   string // brokerIP1:listenPort, as registered
	MetadataPath string // storePathBrokerIdentity: <storePathRootDir>/brokerIdentity

	HeartbeatInterval        time.Duration // brokerHeartbeatInterval
	SendHeartbeatTimeout     time.Duration // sendHeartbeatTimeoutMillis
	HeartbeatTimeout         time.Duration // controllerHeartBeatTimeoutMills: liveness timeout and the master's lease
	SyncBrokerMetadataPeriod time.Duration // syncBrokerMetadataPeriod: GET_REPLICA_INFO
	CheckSyncStateSetPeriod  time.Duration // checkSyncStateSetPeriod: master's SyncStateSet check
	SyncControllerMetadata   time.Duration // syncControllerMetadataPeriod: leader lookup
	ElectionPriority         int           // brokerElectionPriority
	// FenceOnLeaseLoss makes a master stop acknowledging writes once its
	// lease expired (see leaseExpired). The broker sets it unless
	// allAckInSyncStateSet is on: then a write is acknowledged only when
	// every SyncStateSet member holds it, and a member elected in its place
	// first leaves its replication, so a deposed master cannot acknowledge
	// anything its successor lacks, and the master keeps serving through a
	// full controller outage.
	FenceOnLeaseLoss bool
	// RetryInterval is the longest pause between failed registration
	// attempts (5.x: 5 s between attempts).
	RetryInterval time.Duration
}

// noMaster is the masterID while the group has none.
const noMaster int64 = -1

// roleEvent is a master/SyncStateSet view from the controller: an answer
// to REGISTER, ELECT or GET_REPLICA_INFO, or a NOTIFY_BROKER_ROLE_CHANGED.
type roleEvent struct {
	masterID   int64 // noMaster when none
	masterAddr string
	epoch      int32
	set        []int64
	setEpoch   int32
}

// Manager is the ReplicasManager. Create with New; Start; Shutdown.
type Manager struct {
	cfg  Config
	cli  *ctlclient.Client
	rc   *remoting.Client
	host Host
	lg   *zap.Logger

	// Owned by the run goroutine.
	masterID   int64
	masterAddr string
	set        []int64
	setEpoch   int32

	// Read by the heartbeat goroutine and accessors.
	brokerID    atomic.Int64 // controller-assigned id; -1 until registered
	masterEpoch atomic.Int32
	isMaster    atomic.Bool
	fenceMu     sync.Mutex // serialises setFenced (lease and run goroutines), so fenced matches the host's state
	fenced      atomic.Bool
	fencedSince atomic.Int64 // unix nanos when fenced was last set; 0 while unfenced
	leaseFrom   atomic.Int64 // unix nanos of the send time of the last answered heartbeat to the leader

	notify      chan roleEvent             // NOTIFY_BROKER_ROLE_CHANGED → run; buffered, drops when full
	tasks       chan func(context.Context) // Submit → run
	propose     atomic.Pointer[[]int64]    // latest SyncStateSet proposal from the HA layer (Propose)
	proposeKick chan struct{}              // buffered(1): propose was set
	wake        chan struct{}              // buffered(1): heartbeat → run (lease recovered while fenced)
	stopCh      chan struct{}              // closed by Shutdown
	wg          sync.WaitGroup             // run + heartbeat
	once        sync.Once                  // Shutdown
	start       atomic.Bool                // Start called
	now         func() time.Time           // clock (tests)
}

// New returns a stopped manager. rc is the broker's remoting client (not
// owned); cli talks to the controllers over it.
func New(cfg Config, rc *remoting.Client, cli *ctlclient.Client, host Host, lg *zap.Logger) *Manager {
	if lg == nil {
		lg = zap.NewNop()
	}
	if cfg.RetryInterval <= 0 {
		cfg.RetryInterval = 5 * time.Second
	}
	m := &Manager{cfg: cfg, cli: cli, rc: rc, host: host, lg: lg, masterID: noMaster,
		notify: make(chan roleEvent, 16), tasks: make(chan func(context.Context), 16), proposeKick: make(chan struct{}, 1), wake: make(chan struct{}, 1), stopCh: make(chan struct{}), now: time.Now}
	m.brokerID.Store(-1)
	return m
}

// Start fences the broker (no writes until the controller names a master,
// as 5.x initialize does) and spawns the goroutines.
func (m *Manager) Start() {
	if !m.start.CompareAndSwap(false, true) {
		return
	}
	m.setFenced(true, "starting")
	m.wg.Add(3)
	go func() { defer m.wg.Done(); m.run() }()
	go func() { defer m.wg.Done(); m.heartbeatLoop() }()
	go func() { defer m.wg.Done(); m.leaseLoop() }()
}

// Shutdown stops the goroutines and waits for them or ctx. Idempotent.
func (m *Manager) Shutdown(ctx context.Context) error {
	m.once.Do(func() { close(m.stopCh) })
	done := make(chan struct{})
	go func() { m.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// BrokerID is the id the controller assigned (-1 before registration).
func (m *Manager) BrokerID() int64 { return m.brokerID.Load() }

// MasterEpoch is the epoch of the last master change applied.
func (m *Manager) MasterEpoch() int32 { return m.masterEpoch.Load() }

// IsMaster reports whether the controller made this broker the master.
func (m *Manager) IsMaster() bool { return m.isMaster.Load() }

// Fenced reports whether the manager stopped writes (lease lost, starting).
func (m *Manager) Fenced() bool { return m.fenced.Load() }

// FencedSince is when the broker was last fenced (zero while unfenced).
func (m *Manager) FencedSince() time.Time {
	if ns := m.fencedSince.Load(); ns != 0 {
		return time.Unix(0, ns)
	}
	return time.Time{}
}

func (m *Manager) ctx() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-m.stopCh:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

func (m *Manager) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-m.stopCh:
		return false
	}
}

// run registers, then serves the periodic tasks and notifications until
// Shutdown (5.x startBasicService + the scheduled tasks).
func (m *Manager) run() {
	ctx, cancel := m.ctx()
	defer cancel()
	// 5.x retries every 5 s; we start at 200 ms and double up to
	// RetryInterval, so a broker started with its controller (or racing
	// another broker for an id) gets its role in well under a second.
	for wait := 200 * time.Millisecond; !m.startBasic(ctx); wait = min(2*wait, m.cfg.RetryInterval) {
		if !m.sleep(wait) {
			return
		}
	}
	replica := time.NewTicker(m.cfg.SyncBrokerMetadataPeriod)
	defer replica.Stop()
	sss := time.NewTicker(m.cfg.CheckSyncStateSetPeriod)
	defer sss.Stop()
	leader := time.NewTicker(m.cfg.SyncControllerMetadata)
	defer leader.Stop()
	for {
		select {
		case <-m.stopCh:
			return
		case ev := <-m.notify:
			m.apply(ctx, ev)
		case <-replica.C:
			m.syncReplicaInfo(ctx)
		case <-m.wake:
			m.syncReplicaInfo(ctx)
		case <-sss.C:
			m.checkSyncStateSet(ctx)
		case <-m.proposeKick:
			if p := m.propose.Swap(nil); p != nil {
				m.alterSyncStateSet(ctx, *p)
			}
		case f := <-m.tasks:
			f(ctx)
		case <-leader.C:
			if _, err := m.cli.RefreshLeader(ctx); err != nil {
				m.lg.Warn("controller leader lookup failed", zap.Error(err))
			}
		}
	}
}

// startBasic: leader lookup, id registration, then the master (electing
// one when the group has none). It reports whether the broker has a role.
func (m *Manager) startBasic(ctx context.Context) bool {
	if _, err := m.cli.RefreshLeader(ctx); err != nil {
		m.lg.Warn("no controller leader", zap.Strings("controllerAddr", m.cli.Addrs()), zap.Error(err))
		return false
	}
	if m.brokerID.Load() < 0 {
		if err := m.obtainBrokerID(ctx); err != nil {
			m.lg.Warn("broker id not obtained from the controller", zap.Error(err))
			return false
		}
	}
	ev, err := m.registerToController(ctx)
	if err != nil {
		m.lg.Warn("register to controller failed", zap.Error(err))
		return false
	}
	if ev.masterID == noMaster {
		// The controller elects only live brokers: beat first (5.x does too).
		m.heartbeat(ctx)
		if ev, err = m.elect(ctx); err != nil {
			m.lg.Warn("no master in the group and election failed", zap.Error(err))
			return false
		}
	}
	m.apply(ctx, ev)
	return m.masterID != noMaster
}

// obtainBrokerID follows 5.x register(): reuse brokerIdentity; otherwise
// resume or create brokerIdentity-temp with the next id, apply for it, and
// persist brokerIdentity.
func (m *Manager) obtainBrokerID(ctx context.Context) error {
	path, tempPath := m.cfg.MetadataPath, TempMetadataPath(m.cfg.MetadataPath)
	if md, ok, err := ReadMetadata(path, false); err != nil {
		return err
	} else if ok {
		if err := m.checkIdentity(md); err != nil {
			return err
		}
		m.brokerID.Store(md.BrokerID)
		return nil
	}
	tmp, ok, err := ReadMetadata(tempPath, true)
	if err != nil {
		return err
	}
	if ok {
		if err := m.checkIdentity(tmp); err != nil {
			return err
		}
	} else {
		id, err := m.cli.GetNextBrokerID(ctx, m.cfg.ClusterName, m.cfg.BrokerName)
		if err != nil {
			return err
		}
		tmp = Metadata{ClusterName: m.cfg.ClusterName, BrokerName: m.cfg.BrokerName, BrokerID: id,
			CheckCode: ctlclient.RegisterCheckCode(m.cfg.BrokerAddr, m.now())}
		if err := WriteMetadata(tempPath, tmp, true); err != nil {
			return err
		}
	}
	if err := m.cli.ApplyBrokerID(ctx, m.cfg.ClusterName, m.cfg.BrokerName, tmp.BrokerID, tmp.CheckCode); err != nil {
		// Taken by another broker (or the controller is gone): start over
		// with a fresh id next time, as 5.x does.
		_ = RemoveMetadata(tempPath)
		return err
	}
	md := Metadata{ClusterName: tmp.ClusterName, BrokerName: tmp.BrokerName, BrokerID: tmp.BrokerID}
	if err := WriteMetadata(path, md, false); err != nil {
		return err
	}
	_ = RemoveMetadata(tempPath)
	m.brokerID.Store(md.BrokerID)
	m.lg.Info("broker id assigned by the controller", zap.Int64("brokerId", md.BrokerID))
	return nil
}

// errIdentityMismatch: the store's identity files name another group.
var errIdentityMismatch = errors.New("controller: broker metadata names another cluster or brokerName")

func (m *Manager) checkIdentity(md Metadata) error {
	if md.ClusterName != m.cfg.ClusterName || md.BrokerName != m.cfg.BrokerName {
		return errIdentityMismatch
	}
	return nil
}

func (m *Manager) registerToController(ctx context.Context) (roleEvent, error) {
	r, err := m.cli.RegisterBroker(ctx, m.cfg.ClusterName, m.cfg.BrokerName, m.brokerID.Load(), m.cfg.BrokerAddr)
	if err != nil {
		return roleEvent{}, err
	}
	h := r.Header
	return eventOf(h.MasterBrokerID, h.MasterAddress, h.MasterEpoch, r.SyncStateSet.SyncStateSet, h.SyncStateSetEpoch, r.SyncStateSet.SyncStateSetEpoch), nil
}

// elect is 5.x brokerElect: ask the controller to elect (this broker is
// taken as the first master of a new group).
func (m *Manager) elect(ctx context.Context) (roleEvent, error) {
	r, err := m.cli.ElectMaster(ctx, m.cfg.ClusterName, m.cfg.BrokerName, m.brokerID.Load(), false)
	if err != nil {
		return roleEvent{}, err
	}
	h := r.Header
	ev := eventOf(h.MasterBrokerID, h.MasterAddress, h.MasterEpoch, r.Body.SyncStateSet, h.SyncStateSetEpoch, 0)
	if ev.masterID == noMaster {
		return ev, errors.New("controller: election named no master")
	}
	return ev, nil
}

// eventOf builds a roleEvent from the nullable header fields; setEpochAlt
// is used when the header has no set epoch (it comes with the body).
func eventOf(id *int64, addr string, epoch *int32, set []int64, setEpoch *int32, setEpochAlt int32) roleEvent {
	ev := roleEvent{masterID: noMaster, masterAddr: addr, set: set, setEpoch: setEpochAlt}
	if id != nil && addr != "" {
		ev.masterID = *id
	}
	if epoch != nil {
		ev.epoch = *epoch
	}
	if setEpoch != nil {
		ev.setEpoch = *setEpoch
	}
	return ev
}

// syncReplicaInfo is 5.x schedulingSyncBrokerMetadata's task.
func (m *Manager) syncReplicaInfo(ctx context.Context) {
	sent := m.now()
	r, err := m.cli.GetReplicaInfo(ctx, m.cfg.BrokerName)
	if err != nil {
		var re *remoting.Error
		if errors.As(err, &re) && re.Code == code.ControllerBrokerMetadataNotExist {
			if ev, err := m.registerToController(ctx); err == nil {
				m.apply(ctx, ev)
			}
			return
		}
		m.lg.Warn("get replica info from the controller failed", zap.String("brokerName", m.cfg.BrokerName), zap.Error(err))
		return
	}
	h := r.Header
	ev := eventOf(h.MasterBrokerID, h.MasterAddress, h.MasterEpoch, r.SyncStateSet.SyncStateSet, nil, r.SyncStateSet.SyncStateSetEpoch)
	if ev.epoch > m.masterEpoch.Load() && ev.masterID == noMaster {
		if ev, err = m.elect(ctx); err != nil {
			m.lg.Warn("group has no master; election failed", zap.Error(err))
			return
		}
	}
	m.apply(ctx, ev)
	m.maybeUnfence(ev, sent)
}

// apply is 5.x changeBrokerRole + changeSyncStateSet: a newer epoch changes
// the role; the same epoch may carry a newer SyncStateSet.
func (m *Manager) apply(ctx context.Context, ev roleEvent) {
	self := m.brokerID.Load()
	switch {
	case ev.masterID == noMaster:
		return
	case ev.epoch > m.masterEpoch.Load():
		m.changeRole(ctx, ev, self)
	case ev.epoch == m.masterEpoch.Load() && ev.masterID == self && ev.setEpoch > m.setEpoch:
		m.changeSyncStateSet(ev.set, ev.setEpoch)
	}
}

func (m *Manager) changeRole(ctx context.Context, ev roleEvent, self int64) {
	if ev.masterID == self {
		if err := m.host.ChangeToMaster(ctx, ev.epoch, self); err != nil {
			m.lg.Error("change to master failed", zap.Int32("masterEpoch", ev.epoch), zap.Error(err))
			return
		}
		m.leaseFrom.Store(m.now().UnixNano()) // the controller just named us
		m.isMaster.Store(true)
		m.setEpoch = -1 // take the set of this epoch whatever its number
		m.changeSyncStateSet(ev.set, ev.setEpoch)
	} else {
		m.isMaster.Store(false)
		if err := m.host.ChangeToSlave(ctx, ev.masterAddr, ev.masterID, ev.epoch, self); err != nil {
			m.lg.Error("change to slave failed", zap.Int32("masterEpoch", ev.epoch), zap.Error(err))
			// Another broker is master: take no writes until the next
			// poll manages the switch.
			m.setFenced(true, "change to slave failed")
			return
		}
		m.set, m.setEpoch = nil, 0
	}
	m.masterID, m.masterAddr = ev.masterID, ev.masterAddr
	m.masterEpoch.Store(ev.epoch)
	m.setFenced(false, "role assigned")
	m.lg.Info("broker role changed", zap.Int64("brokerId", self), zap.Int64("masterBrokerId", ev.masterID),
		zap.String("masterAddr", ev.masterAddr), zap.Int32("masterEpoch", ev.epoch), zap.Int64s("syncStateSet", ev.set))
}

func (m *Manager) changeSyncStateSet(set []int64, epoch int32) {
	if epoch <= m.setEpoch {
		return
	}
	m.set = slices.Clone(set)
	m.setEpoch = epoch
	m.host.SetSyncStateSet(m.set)
	m.lg.Info("syncStateSet changed", zap.Int64s("syncStateSet", set), zap.Int32("syncStateSetEpoch", epoch))
}

// checkSyncStateSet is 5.x checkSyncStateSetAndDoReport: every
// checkSyncStateSetPeriod the master asks the controller to drop the
// members the HA layer finds behind.
func (m *Manager) checkSyncStateSet(ctx context.Context) {
	if !m.isMaster.Load() || m.fenced.Load() {
		return
	}
	if p := m.propose.Swap(nil); p != nil { // a proposal the controller refused (replica not yet seen alive)
		m.alterSyncStateSet(ctx, *p)
		return
	}
	if p, changed := m.host.ShrinkSyncStateSet(); changed {
		m.alterSyncStateSet(ctx, p)
	}
}

// Propose hands the HA layer's wish for a new SyncStateSet (a replica
// caught up, or a member left) to the run goroutine; never blocks, the
// latest proposal wins.
func (m *Manager) Propose(ids []int64) {
	p := slices.Clone(ids)
	m.propose.Store(&p)
	select {
	case m.proposeKick <- struct{}{}:
	default:
	}
}

// Submit runs f on the run goroutine, serialised with role changes (f
// must not block for long). It drops f once Shutdown began or when the
// queue is full.
func (m *Manager) Submit(f func(ctx context.Context)) bool {
	select {
	case <-m.stopCh:
		return false
	case m.tasks <- f:
		return true
	default:
		return false
	}
}

// alterSyncStateSet sends AlterSyncStateSet as master (5.x
// doReportSyncStateSetChanged) and installs the set the controller
// answers with.
func (m *Manager) alterSyncStateSet(ctx context.Context, want []int64) {
	if !m.isMaster.Load() || m.fenced.Load() {
		return
	}
	self := m.brokerID.Load()
	if !slices.Contains(want, self) {
		want = append(want, self)
	}
	slices.Sort(want)
	if slices.Equal(want, slices.Sorted(slices.Values(m.set))) {
		return
	}
	s, err := m.cli.AlterSyncStateSet(ctx, m.cfg.BrokerName, self, m.masterEpoch.Load(), want, m.setEpoch)
	if err != nil {
		m.lg.Warn("alter syncStateSet failed", zap.Int64s("syncStateSet", m.set), zap.Int64s("newSyncStateSet", want), zap.Error(err))
		m.propose.CompareAndSwap(nil, &want) // retried at the next check unless a newer one came
		return
	}
	m.changeSyncStateSet(s.SyncStateSet, s.SyncStateSetEpoch)
}

// Notify hands a NOTIFY_BROKER_ROLE_CHANGED to the run goroutine; never
// blocks (a dropped notification is caught up by the next poll).
func (m *Manager) Notify(h *header.NotifyBrokerRoleChangedRequestHeader, set *body.SyncStateSet) {
	var ids []int64
	var alt int32
	if set != nil {
		ids, alt = set.SyncStateSet, set.SyncStateSetEpoch
	}
	ev := eventOf(h.MasterBrokerID, h.MasterAddress, h.MasterEpoch, ids, h.SyncStateSetEpoch, alt)
	select {
	case m.notify <- ev:
	default:
		m.lg.Warn("role change notification dropped; the next poll applies it")
	}
}

// ProcessNotify is the NOTIFY_BROKER_ROLE_CHANGED processor (5.x
// AdminBrokerProcessor.notifyBrokerRoleChanged).
func (m *Manager) ProcessNotify(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.NotifyBrokerRoleChangedRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, remoting.NewError(code.SystemError, err.Error())
	}
	var set *body.SyncStateSet
	if len(req.Body) > 0 {
		s, err := body.DecodeSyncStateSet(req.Body)
		if err != nil {
			return nil, remoting.NewError(code.SystemError, err.Error())
		}
		set = s
	}
	m.Notify(&h, set)
	return codec.NewResponse(code.Success, ""), nil
}

// heartbeatLoop sends BROKER_HEARTBEAT every HeartbeatInterval: synchronously
// to the leader (its answer renews the master's lease) and oneway to the
// other controllers (each keeps its own liveness table, as in 5.x).
func (m *Manager) heartbeatLoop() {
	ctx, cancel := m.ctx()
	defer cancel()
	t := time.NewTicker(m.cfg.HeartbeatInterval)
	defer t.Stop()
	for {
		select {
		case <-m.stopCh:
			return
		case <-t.C:
		}
		if m.brokerID.Load() < 0 {
			continue
		}
		m.heartbeat(ctx)
	}
}

// leaseLoop checks the master's lease every HeartbeatTimeout/20, apart
// from the heartbeats, which may block on an unreachable controller.
func (m *Manager) leaseLoop() {
	t := time.NewTicker(max(m.cfg.HeartbeatTimeout/20, time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-m.stopCh:
			return
		case <-t.C:
			m.checkLease()
		}
	}
}

// heartbeatHeader is this broker's BROKER_HEARTBEAT header, every field set.
func (m *Manager) heartbeatHeader() map[string]string {
	epoch, maxOff, confirm := m.host.ReplicaState()
	id, timeout, prio := m.brokerID.Load(), m.cfg.HeartbeatTimeout.Milliseconds(), int32(m.cfg.ElectionPriority)
	return (&header.BrokerHeartbeatRequestHeader{ClusterName: m.cfg.ClusterName, BrokerAddr: m.cfg.BrokerAddr,
		BrokerName: m.cfg.BrokerName, BrokerID: &id, Epoch: &epoch, MaxOffset: &maxOff, ConfirmOffset: &confirm,
		HeartbeatTimeoutMills: &timeout, ElectionPriority: &prio}).ToExtFields()
}

func (m *Manager) heartbeat(ctx context.Context) {
	ext := m.heartbeatHeader()
	leader := m.cli.Leader()
	for _, a := range m.cli.Addrs() {
		req := codec.NewRequest(code.BrokerHeartbeat, ext, nil)
		if a != leader {
			octx, cancel := context.WithTimeout(ctx, m.cfg.SendHeartbeatTimeout)
			_ = m.rc.InvokeOneway(octx, a, req)
			cancel()
			continue
		}
		sent := m.now()
		sctx, cancel := context.WithTimeout(ctx, m.cfg.SendHeartbeatTimeout)
		resp, err := m.rc.InvokeSync(sctx, a, req)
		cancel()
		if err == nil && resp.Code == code.Success {
			m.renewLease(sent)
			continue
		}
		leader = "" // gone or no longer leader: look again
	}
	if leader == "" { // find it for the next beat
		_, _ = m.cli.RefreshLeader(ctx)
	}
}

func (m *Manager) renewLease(sent time.Time) {
	for {
		old := m.leaseFrom.Load()
		if sent.UnixNano() <= old || m.leaseFrom.CompareAndSwap(old, sent.UnixNano()) {
			break
		}
	}
	if m.fenced.Load() && m.isMaster.Load() {
		select { // let run confirm the epoch before writes resume
		case m.wake <- struct{}{}:
		default:
		}
	}
}

// leaseExpired: the leader has answered no heartbeat sent in the last
// HeartbeatTimeout less a tenth (the margin covers the check period and
// timer and clock-rate slack). The controller counts a broker inactive
// HeartbeatTimeout after the last heartbeat it received, which was sent no
// earlier than the last answered one, so the master stops acknowledging
// before any election can replace it.
func (m *Manager) leaseExpired() bool {
	from := time.Unix(0, m.leaseFrom.Load())
	return m.now().Sub(from) > m.cfg.HeartbeatTimeout-m.cfg.HeartbeatTimeout/10
}

func (m *Manager) checkLease() {
	if !m.cfg.FenceOnLeaseLoss || !m.isMaster.Load() || m.fenced.Load() || !m.leaseExpired() {
		return
	}
	m.fenceMu.Lock()
	defer m.fenceMu.Unlock()
	if m.isMaster.Load() && m.leaseExpired() { // again, under the lock
		m.setFencedLocked(true, "controller lease expired")
	}
}

// maybeUnfence lifts a lease fence once the leader confirmed (in an answer
// to a request sent after the lease was renewed) that this broker is still
// the master of the current epoch.
func (m *Manager) maybeUnfence(ev roleEvent, sent time.Time) {
	if !m.fenced.Load() || !m.isMaster.Load() || m.leaseExpired() {
		return
	}
	if ev.masterID != m.brokerID.Load() || ev.epoch != m.masterEpoch.Load() || sent.UnixNano() < m.leaseFrom.Load() {
		return
	}
	m.fenceMu.Lock()
	defer m.fenceMu.Unlock()
	if !m.leaseExpired() {
		m.setFencedLocked(false, "controller confirmed the master")
	}
}

func (m *Manager) setFenced(f bool, why string) {
	m.fenceMu.Lock()
	defer m.fenceMu.Unlock()
	m.setFencedLocked(f, why)
}

// setFencedLocked changes the fence; the caller holds fenceMu (host.SetFenced
// only flips flags and kicks the registration, it does no I/O).
func (m *Manager) setFencedLocked(f bool, why string) {
	if m.fenced.Swap(f) == f {
		return
	}
	m.host.SetFenced(f)
	if f {
		m.fencedSince.Store(m.now().UnixNano())
	} else {
		m.fencedSince.Store(0)
	}
	if f {
		m.lg.Warn("broker fenced: writes refused", zap.String("reason", why), zap.Int32("masterEpoch", m.masterEpoch.Load()))
	} else {
		m.lg.Info("broker unfenced", zap.String("reason", why), zap.Int32("masterEpoch", m.masterEpoch.Load()))
	}
}
