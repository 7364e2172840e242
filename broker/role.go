package broker

// Controller mode (Apache 5.x enableControllerMode): the controller assigns
// the broker's id and role (broker/controller's Manager, the
// ReplicasManager); this file applies them at broker level. Changing to
// master: the HA service and store become master (5.x
// AutoSwitchHAService.changeToMaster), the broker registers with the name
// servers as brokerId 0 and starts the master-only services (schedule
// delivery, transaction check). Changing to slave: the master-only
// services stop, the store refuses puts, the broker registers with its
// controller-assigned id and, once a name server names the same master with
// its HA address, replicates from it (the slave sync already copies
// topics, offsets, delay offsets and subscription groups from the master).
// Until it has a role, and while fenced, the broker does not register with
// the name servers (5.x isIsolated).

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/controller"
	"github.com/rocketmq-go/rmq/broker/store/epoch"
	ctlclient "github.com/rocketmq-go/rmq/controller/client"
	"github.com/rocketmq-go/rmq/internal/service"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// ErrNoControllerHA: controller mode needs an HA service that can switch
// roles at runtime.
var ErrNoControllerHA = errors.New("broker: controller mode needs a role-switching HA service")

// followRetry is how often a new slave asks the name servers for its
// master's HA address until they name the master the controller chose.
const followRetry = 500 * time.Millisecond

// haController is what controller mode needs from b.HA (broker/ha.Service).
type haController interface {
	EnableControllerMode() error
	SetLocalBrokerID(id int64)
	LastEpoch() int32
	ChangeToMaster(epoch int32) (startOffset int64, err error)
	ChangeToSlave(masterHAAddr string, epoch int32, brokerID int64) error
	UpdateMasterAddress(addr string)
	SetSyncStateSet(ids []int64)
	SetOnSyncStateSetChanged(f func(proposed []int64))
	MaybeShrinkSyncStateSet() (proposed []int64, changed bool)
	ConfirmOffset() int64
	EpochEntries() []epoch.Entry
}

// fenceable is the store's 5.x RunningFlags.makeFenced.
type fenceable interface{ SetFenced(fenced bool) }

// controllerRole is the broker's controller-mode state.
type controllerRole struct {
	mgr      atomic.Pointer[controller.Manager] // set by Start
	isolated atomic.Bool                        // no role yet, or fenced: not registered with the name servers
	// term counts role changes; it moves only on the manager's goroutine,
	// so a task Submitted there sees it stable.
	term atomic.Int64

	mu      sync.Mutex         // guards running
	running []*service.Service // master-only services of the current master term
}

func init() { processorFamilies = append(processorFamilies, wireController) }

func wireController(b *Broker) {
	if !b.Config().EnableControllerMode {
		return
	}
	b.ctl = &controllerRole{}
	b.ctl.isolated.Store(true)
	// Fenced from the start, whatever brokerRole says, until the controller
	// names a master (5.x initialize: replicasManager.setFenced(true)).
	if f, ok := b.store.(fenceable); ok {
		f.SetFenced(true)
	}
	b.registerProcessor(code.NotifyBrokerRoleChanged, remoting.ProcessorFunc(b.processNotifyBrokerRoleChanged), b.Pools.Admin, true)
	b.registerProcessor(code.GetBrokerEpochCache, remoting.ProcessorFunc(b.processGetBrokerEpochCache), b.Pools.Admin, true)
	b.onShutdown(func(ctx context.Context) {
		if m := b.ctl.mgr.Load(); m != nil {
			if err := m.Shutdown(ctx); err != nil {
				b.lg.Warn("replicas manager shutdown", zap.Error(err))
			}
		}
		b.stopMasterServices(ctx)
	})
}

// isolated reports whether controller mode keeps the broker away from the
// name servers (no role yet, or fenced).
func (b *Broker) isolated() bool { return b.ctl != nil && b.ctl.isolated.Load() }

// addMasterService registers the factory of a service that runs only on a
// master. Outside controller mode a master builds it once here (Start
// starts it); in controller mode each master term builds and starts its own
// and stops it when the broker becomes a slave.
func (b *Broker) addMasterService(f func() *service.Service) {
	b.masterServices = append(b.masterServices, f)
	if !b.Config().EnableControllerMode && !b.IsSlave() {
		b.addService(f())
	}
}

func (b *Broker) startMasterServices() {
	b.ctl.mu.Lock()
	defer b.ctl.mu.Unlock()
	if len(b.ctl.running) > 0 {
		return
	}
	for _, f := range b.masterServices {
		s := f()
		s.Start()
		b.ctl.running = append(b.ctl.running, s)
	}
}

func (b *Broker) stopMasterServices(ctx context.Context) {
	b.ctl.mu.Lock()
	running := b.ctl.running
	b.ctl.running = nil
	b.ctl.mu.Unlock()
	for i := len(running) - 1; i >= 0; i-- {
		if err := running[i].Stop(ctx); err != nil {
			b.lg.Warn("master service did not stop", zap.String("service", running[i].Name()), zap.Error(err))
		}
	}
}

// startController starts the ReplicasManager (Start, before the name-server
// registration, which waits for a role).
func (b *Broker) startController() error {
	if b.ctl == nil {
		return nil
	}
	hc, ok := b.HA.(haController)
	if !ok {
		return ErrNoControllerHA
	}
	if err := hc.EnableControllerMode(); err != nil {
		return fmt.Errorf("broker: controller mode: %w", err)
	}
	c := b.Config()
	ms := func(v int64) time.Duration { return time.Duration(v) * time.Millisecond }
	mc := controller.Config{
		ClusterName:              c.BrokerClusterName,
		BrokerName:               c.BrokerName,
		BrokerAddr:               b.BrokerAddr(),
		MetadataPath:             controller.MetadataPath(b.storeCfg.StorePathRootDir),
		HeartbeatInterval:        ms(int64(c.BrokerHeartbeatInterval)),
		SendHeartbeatTimeout:     ms(int64(c.SendHeartbeatTimeoutMillis)),
		HeartbeatTimeout:         ms(c.ControllerHeartBeatTimeoutMills),
		SyncBrokerMetadataPeriod: ms(c.SyncBrokerMetadataPeriod),
		CheckSyncStateSetPeriod:  ms(c.CheckSyncStateSetPeriod),
		SyncControllerMetadata:   ms(c.SyncControllerMetadataPeriod),
		ElectionPriority:         c.BrokerElectionPriority,
		FenceOnLeaseLoss:         !b.storeCfg.AllAckInSyncStateSet,
	}
	rc := b.outAPI.Client()
	cli := ctlclient.New(rc, c.ControllerAddrList(), b.lg.Named("controller.client"))
	m := controller.New(mc, rc, cli, controllerHost{b: b, ha: hc}, b.lg.Named("controller"))
	hc.SetOnSyncStateSetChanged(m.Propose)
	b.ctl.mgr.Store(m)
	m.Start()
	return nil
}

// Replicas is the ReplicasManager (nil outside controller mode or before
// Start).
func (b *Broker) Replicas() *controller.Manager {
	if b.ctl == nil {
		return nil
	}
	return b.ctl.mgr.Load()
}

// processNotifyBrokerRoleChanged serves NOTIFY_BROKER_ROLE_CHANGED (1008):
// the controller announces a new master; the manager applies it.
func (b *Broker) processNotifyBrokerRoleChanged(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	m := b.ctl.mgr.Load()
	if m == nil {
		return codec.NewResponse(code.Success, ""), nil // not started: the first poll reads the same
	}
	return m.ProcessNotify(ctx, req)
}

// processGetBrokerEpochCache serves GET_BROKER_EPOCH_CACHE (1007, 5.x
// AdminBrokerProcessor.getBrokerEpochCache; mqadmin getBrokerEpoch): the
// epoch file's entries (the last one ending at MaxInt64, as 5.x), the
// CommitLog's max offset and the broker's current id. Registered in
// controller mode only (a 4.9.8 broker does not know the code).
func (b *Broker) processGetBrokerEpochCache(*remoting.Context, *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	hc, ok := b.HA.(haController)
	if !ok {
		return nil, remoting.NewError(code.SystemError, "this request only for controllerMode ")
	}
	c := b.Config()
	cache := body.EpochEntryCache{ClusterName: c.BrokerClusterName, BrokerName: c.BrokerName, BrokerID: c.BrokerID,
		EpochList: []body.EpochEntry{}, MaxOffset: b.store.MaxPhyOffset()}
	for _, e := range hc.EpochEntries() {
		cache.EpochList = append(cache.EpochList, body.EpochEntry{Epoch: e.Epoch, StartOffset: e.StartOffset, EndOffset: e.EndOffset})
	}
	resp := codec.NewResponse(code.Success, "")
	resp.Body = cache.Encode()
	return resp, nil
}

// setBrokerID swaps in a config snapshot with brokerId id (the controller
// assigned it; the name servers see it from the next registration).
func (b *Broker) setBrokerID(id int64) {
	for {
		old := b.cfg.Load()
		if old.BrokerID == id {
			return
		}
		cp := old.Clone()
		cp.BrokerID = id
		if b.cfg.CompareAndSwap(old, cp) {
			return
		}
	}
}

// controllerHost is the broker side the Manager drives.
type controllerHost struct {
	b  *Broker
	ha haController
}

func (h controllerHost) ChangeToMaster(ctx context.Context, epoch int32, selfID int64) error {
	b := h.b
	b.ctl.term.Add(1)
	h.ha.SetLocalBrokerID(selfID)
	if _, err := h.ha.ChangeToMaster(epoch); err != nil {
		return err
	}
	b.setBrokerID(MasterID)
	b.SetMasterAddr(b.BrokerAddr())
	b.startMasterServices()
	b.ctl.isolated.Store(false)
	b.registerBrokerAll(ctx, true, false, true)
	return nil
}

func (h controllerHost) ChangeToSlave(ctx context.Context, masterAddr string, _ int64, epoch int32, selfID int64) error {
	b := h.b
	term := b.ctl.term.Add(1)
	b.stopMasterServices(ctx)
	// No HA address yet: the store refuses puts at once; follow() points
	// replication at the master once a name server names it.
	if err := h.ha.ChangeToSlave("", epoch, selfID); err != nil {
		return err
	}
	b.setBrokerID(selfID)
	b.SetMasterAddr(masterAddr)
	b.ctl.isolated.Store(false)
	b.goFunc(func() { h.follow(term, masterAddr) })
	return nil
}

// follow registers with the name servers until one answers with the
// master's HA address for the master the controller named, then points
// replication there (on the manager's goroutine, so only if no role change
// happened meanwhile).
func (h controllerHost) follow(term int64, masterAddr string) {
	b := h.b
	for b.ctl.term.Load() == term {
		r := b.registerBrokerAll(context.Background(), true, false, true)
		if r != nil && r.MasterAddr == masterAddr && r.HaServerAddr != "" {
			haAddr := r.HaServerAddr
			if b.ctl.mgr.Load().Submit(func(context.Context) {
				if b.ctl.term.Load() == term {
					h.ha.UpdateMasterAddress(haAddr)
					b.lg.Info("replicating from the new master", zap.String("masterAddr", masterAddr), zap.String("haServerAddr", haAddr))
				}
			}) {
				return
			}
		}
		if !b.sleepOrStop(followRetry) {
			return
		}
	}
}

func (h controllerHost) SetSyncStateSet(ids []int64) { h.ha.SetSyncStateSet(ids) }

func (h controllerHost) ShrinkSyncStateSet() ([]int64, bool) { return h.ha.MaybeShrinkSyncStateSet() }

func (h controllerHost) SetFenced(fenced bool) {
	b := h.b
	if f, ok := b.store.(fenceable); ok {
		f.SetFenced(fenced)
	}
	b.ctl.isolated.Store(fenced)
	if !fenced {
		b.kickRegister()
	}
}

func (h controllerHost) ReplicaState() (int32, int64, int64) {
	return h.ha.LastEpoch(), h.b.store.MaxPhyOffset(), h.ha.ConfirmOffset()
}
