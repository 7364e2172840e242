package controller

// Codes served (5.x ControllerRequestProcessor): CONTROLLER_ALTER_SYNC_STATE_SET
// (1001), CONTROLLER_ELECT_MASTER (1002), CONTROLLER_REGISTER_BROKER (1003),
// CONTROLLER_GET_REPLICA_INFO (1004), CONTROLLER_GET_METADATA_INFO (1005),
// CONTROLLER_GET_SYNC_STATE_DATA (1006), GET_CONTROLLER_CONFIG (1010),
// CLEAN_BROKER_DATA (1011), CONTROLLER_GET_NEXT_BROKER_ID (1012),
// CONTROLLER_APPLY_BROKER_ID (1013), UPDATE_CONTROLLER_CONFIG (1009) and
// BROKER_HEARTBEAT (904).

import (
	"errors"
	"strings"
	"time"

	"github.com/hashicorp/raft"
	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// requestWait bounds how long a request waits for the scheduler (5.x
// ControllerRequestProcessor.WAIT_TIMEOUT_OUT is 3 s plus DLedger's 5 s).
const requestWait = 8 * time.Second

// request is one state-machine request queued to the scheduler goroutine.
type request struct {
	name string
	run  func(m *ReplicasInfoManager) *Result
	done chan *Result // buffered(1): the scheduler never blocks on it
}

// submit queues fn and waits for its result. Requests are run one at a time
// by the scheduler (5.x EventScheduler), so each is validated against the
// state every earlier one left, including its replicated events.
func (c *Controller) submit(name string, fn func(m *ReplicasInfoManager) *Result) *Result {
	if !c.IsLeader() {
		return notLeader()
	}
	req := &request{name: name, run: fn, done: make(chan *Result, 1)}
	t := time.NewTimer(requestWait)
	defer t.Stop()
	select {
	case c.reqCh <- req:
	case <-t.C:
		return &Result{Code: code.SystemBusy, Remark: "controller request queue is full"}
	case <-c.stopCh:
		return notLeader()
	}
	select {
	case r := <-req.done:
		return r
	case <-t.C:
		return &Result{Code: code.SystemError, Remark: "controller request " + name + " timed out"}
	case <-c.stopCh:
		return notLeader()
	}
}

func notLeader() *Result {
	return &Result{Code: code.ControllerNotLeader, Remark: "The controller is not in leader state"}
}

// schedule is the scheduler goroutine: it runs queued requests in order and
// replicates their events through Raft before answering. It holds no lock
// while waiting for Raft.
func (c *Controller) schedule() {
	for {
		select {
		case <-c.stopCh:
			return
		case req := <-c.reqCh:
			req.done <- c.runRequest(req)
		}
	}
}

func (c *Controller) runRequest(req *request) *Result {
	if !c.IsLeader() || c.raft.State() != raft.Leader {
		return notLeader()
	}
	var r *Result
	c.fsm.Read(func(m *ReplicasInfoManager) { r = req.run(m) })
	if len(r.Events) == 0 && !c.conf().IsProcessReadEvent {
		return r
	}
	data, err := EncodeEvents(r.Events)
	if err != nil {
		return &Result{Code: code.SystemError, Remark: err.Error()}
	}
	if err := c.await(c.raft.Apply(data, raftApplyTimeout)); err != nil {
		c.lg.Warn("replicate controller events failed", zap.String("request", req.name), zap.Error(err))
		if errors.Is(err, raft.ErrNotLeader) || errors.Is(err, raft.ErrLeadershipLost) || errors.Is(err, raft.ErrRaftShutdown) {
			return notLeader()
		}
		return &Result{Code: code.SystemError, Remark: "replicate controller events: " + err.Error()}
	}
	return r
}

// toResponse turns a Result into the wire answer.
func toResponse(r *Result) *codec.RemotingCommand {
	resp := codec.NewResponse(r.Code, r.Remark)
	if r.Header != nil {
		resp.ExtFields = r.Header.ToExtFields()
	}
	resp.Body = r.Body
	return resp
}

func (c *Controller) registerProcessors() {
	pool := remoting.NewPool("controller", c.cfg.ControllerThreadPoolNums, c.cfg.ControllerRequestThreadPoolQueueCapacity)
	reg := func(k int32, f func(*remoting.Context, *codec.RemotingCommand) (*codec.RemotingCommand, error)) {
		c.server.RegisterProcessor(k, remoting.ProcessorFunc(f), pool)
	}
	reg(code.ControllerGetMetadataInfo, c.getMetadata)
	reg(code.BrokerHeartbeat, c.brokerHeartbeat)
	reg(code.GetControllerConfig, c.getConfig)
	reg(code.UpdateControllerConfig, c.updateConfig)
	reg(code.ControllerAlterSyncStateSet, c.alterSyncStateSet)
	reg(code.ControllerElectMaster, c.electMaster)
	reg(code.ControllerRegisterBroker, c.registerBroker)
	reg(code.ControllerGetReplicaInfo, c.getReplicaInfo)
	reg(code.ControllerGetSyncStateData, c.getSyncStateData)
	reg(code.CleanBrokerData, c.cleanBrokerData)
	reg(code.ControllerGetNextBrokerId, c.getNextBrokerID)
	reg(code.ControllerApplyBrokerId, c.applyBrokerID)
}

// decodeHeader fills h from req or returns the error answer.
func decodeHeader(req *codec.RemotingCommand, h header.CommandCustomHeader) *codec.RemotingCommand {
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return codec.NewResponse(code.SystemError, err.Error())
	}
	return nil
}

func (c *Controller) getMetadata(_ *remoting.Context, _ *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	id, addr := c.Leader()
	var peers strings.Builder
	for _, p := range c.peers {
		peers.WriteString(p.ID + ":" + p.Addr + ";")
	}
	resp := codec.NewResponse(code.Success, "")
	resp.ExtFields = (&header.GetMetaDataResponseHeader{Group: c.conf().ControllerDLegerGroup, ControllerLeaderID: id,
		ControllerLeaderAddress: addr, IsLeader: c.IsLeader(), Peers: peers.String()}).ToExtFields()
	return resp, nil
}

func (c *Controller) brokerHeartbeat(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.BrokerHeartbeatRequestHeader
	if resp := decodeHeader(req, &h); resp != nil {
		return resp, nil
	}
	if h.BrokerID == nil {
		return codec.NewResponse(code.ControllerInvalidRequest, "Heart beat with empty brokerId"), nil
	}
	c.hb.OnBrokerHeartbeat(Heartbeat{BrokerIdentity: BrokerIdentity{h.ClusterName, h.BrokerName, *h.BrokerID},
		BrokerAddr: h.BrokerAddr, TimeoutMillis: h.HeartbeatTimeoutMills, Epoch: h.Epoch, MaxOffset: h.MaxOffset,
		ConfirmOffset: h.ConfirmOffset, ElectionPriority: h.ElectionPriority, Channel: ctx.Channel})
	return codec.NewResponse(code.Success, "Heart beat success"), nil
}

func (c *Controller) alterSyncStateSet(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.AlterSyncStateSetRequestHeader
	if resp := decodeHeader(req, &h); resp != nil {
		return resp, nil
	}
	set, err := body.DecodeSyncStateSet(req.Body)
	if err != nil {
		return codec.NewResponse(code.ControllerInvalidRequest, "bad SyncStateSet body: "+err.Error()), nil
	}
	return toResponse(c.submit("alterSyncStateSet", func(m *ReplicasInfoManager) *Result {
		return m.AlterSyncStateSet(&h, set, c.hb.IsActive)
	})), nil
}

func (c *Controller) electMaster(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.ElectMasterRequestHeader
	if resp := decodeHeader(req, &h); resp != nil {
		return resp, nil
	}
	r := c.elect(&h)
	return toResponse(r), nil
}

// elect runs one election and, when it changed the master and
// notifyBrokerRoleChanged is on, tells the group's live brokers.
func (c *Controller) elect(h *header.ElectMasterRequestHeader) *Result {
	cfg := c.conf()
	r := c.submit("electMaster", func(m *ReplicasInfoManager) *Result {
		return m.ElectMaster(h, c.policy, cfg.EnableElectUncleanMaster)
	})
	if r.Code == code.Success && cfg.NotifyBrokerRoleChanged {
		c.notifyRoleChanged(r)
	}
	return r
}

func (c *Controller) registerBroker(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.RegisterBrokerToControllerRequestHeader
	if resp := decodeHeader(req, &h); resp != nil {
		return resp, nil
	}
	return toResponse(c.submit("registerBroker", func(m *ReplicasInfoManager) *Result {
		return m.RegisterBroker(&h, c.hb.IsActive)
	})), nil
}

func (c *Controller) getReplicaInfo(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.GetReplicaInfoRequestHeader
	if resp := decodeHeader(req, &h); resp != nil {
		return resp, nil
	}
	return toResponse(c.submit("getReplicaInfo", func(m *ReplicasInfoManager) *Result { return m.GetReplicaInfo(&h) })), nil
}

func (c *Controller) getSyncStateData(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	if len(req.Body) == 0 {
		return codec.NewResponse(code.Success, ""), nil
	}
	names, err := body.DecodeBrokerNameList(req.Body)
	if err != nil || len(names) == 0 {
		return codec.NewResponse(code.Success, ""), nil
	}
	return toResponse(c.submit("getSyncStateData", func(m *ReplicasInfoManager) *Result {
		return m.GetSyncStateData(names, c.hb.IsActive)
	})), nil
}

func (c *Controller) cleanBrokerData(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.CleanControllerBrokerDataRequestHeader
	if resp := decodeHeader(req, &h); resp != nil {
		return resp, nil
	}
	return toResponse(c.submit("cleanBrokerData", func(m *ReplicasInfoManager) *Result {
		return m.CleanBrokerData(&h, c.hb.IsActive)
	})), nil
}

func (c *Controller) getNextBrokerID(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.GetNextBrokerIdRequestHeader
	if resp := decodeHeader(req, &h); resp != nil {
		return resp, nil
	}
	return toResponse(c.submit("getNextBrokerId", func(m *ReplicasInfoManager) *Result { return m.GetNextBrokerID(&h) })), nil
}

func (c *Controller) applyBrokerID(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.ApplyBrokerIdRequestHeader
	if resp := decodeHeader(req, &h); resp != nil {
		return resp, nil
	}
	return toResponse(c.submit("applyBrokerId", func(m *ReplicasInfoManager) *Result { return m.ApplyBrokerID(&h) })), nil
}
