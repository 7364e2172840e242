package controller

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// notifyTimeout bounds one NOTIFY_BROKER_ROLE_CHANGED send (5.x: 3000 ms).
const notifyTimeout = 3 * time.Second

// scanLoop runs the two periodic checks: expired broker heartbeats every
// scanNotActiveBrokerInterval (on every node, as each keeps its own table),
// and, on the leader, groups whose master is inactive every
// scanInactiveMasterInterval. Either may trigger an election.
func (c *Controller) scanLoop() {
	brokers := time.NewTicker(time.Duration(c.cfg.ScanNotActiveBrokerInterval) * time.Millisecond)
	defer brokers.Stop()
	masters := time.NewTicker(time.Duration(c.cfg.ScanInactiveMasterInterval) * time.Millisecond)
	defer masters.Stop()
	for {
		select {
		case <-c.stopCh:
			return
		case <-brokers.C:
			gone, chans := c.hb.ScanNotActive()
			for _, ch := range chans {
				_ = ch.Close()
			}
			for _, id := range gone {
				c.onBrokerInactive(id)
			}
		case <-masters.C:
			if !c.IsLeader() {
				continue
			}
			var names []string
			c.fsm.Read(func(m *ReplicasInfoManager) { names = m.ScanNeedReelectBrokerSets(c.hb.IsActive) })
			for _, n := range names {
				c.triggerElectMaster(n)
			}
		}
	}
}

// onBrokerInactive: on the leader, an inactive master starts an election
// (5.x ControllerManager.onBrokerInactive).
func (c *Controller) onBrokerInactive(id BrokerIdentity) {
	if !c.IsLeader() {
		c.lg.Info("broker inactive", zap.String("brokerName", id.BrokerName), zap.Int64("brokerId", id.BrokerID))
		return
	}
	var master *int64
	c.fsm.Read(func(m *ReplicasInfoManager) {
		if _, st, ok := m.Group(id.BrokerName); ok {
			master = st.MasterBrokerID
		}
	})
	if master == nil || *master != id.BrokerID {
		c.lg.Info("broker inactive", zap.String("brokerName", id.BrokerName), zap.Int64("brokerId", id.BrokerID))
		return
	}
	c.lg.Warn("master inactive, electing a new one", zap.String("brokerName", id.BrokerName), zap.Int64("brokerId", id.BrokerID))
	c.triggerElectMaster(id.BrokerName)
}

// triggerElectMaster runs a controller-triggered election, retried up to
// electMasterMaxRetryCount times while it does not succeed.
func (c *Controller) triggerElectMaster(brokerName string) {
	for i := 0; i < max(c.conf().ElectMasterMaxRetryCount, 1); i++ {
		r := c.elect(&header.ElectMasterRequestHeader{BrokerName: brokerName, BrokerID: ptr(int64(-1)),
			InvokeTime: ptr(time.Now().UnixMilli())})
		if r.Code == code.Success {
			c.lg.Info("elected new master", zap.String("brokerName", brokerName), zap.String("remark", r.Remark),
				zap.Any("master", r.Header))
			return
		}
		c.lg.Warn("elect master failed", zap.String("brokerName", brokerName), zap.Int32("code", r.Code),
			zap.String("remark", r.Remark), zap.Int("retryCount", i))
		if r.Code == code.ControllerNotLeader {
			return
		}
	}
}

// notifyRoleChanged sends NOTIFY_BROKER_ROLE_CHANGED oneway to every live
// broker of the group of a successful election, each on its own goroutine.
func (c *Controller) notifyRoleChanged(r *Result) {
	h, ok := r.Header.(*header.ElectMasterResponseHeader)
	if !ok || h.MasterBrokerID == nil {
		return
	}
	eb, err := body.DecodeElectMasterResponseBody(r.Body)
	if err != nil || eb.BrokerMemberGroup == nil {
		return
	}
	g := eb.BrokerMemberGroup
	nh := &header.NotifyBrokerRoleChangedRequestHeader{MasterAddress: h.MasterAddress, MasterEpoch: h.MasterEpoch,
		SyncStateSetEpoch: h.SyncStateSetEpoch, MasterBrokerID: h.MasterBrokerID}
	set := (&body.SyncStateSet{SyncStateSet: eb.SyncStateSet, SyncStateSetEpoch: deref32(h.SyncStateSetEpoch, 0)}).Encode()
	for id, addr := range g.BrokerAddrs {
		if addr == "" || !c.hb.IsActive(g.Cluster, g.BrokerName, id) {
			continue
		}
		req := codec.NewRequest(code.NotifyBrokerRoleChanged, nh.ToExtFields(), set)
		c.goFunc(func() { c.notifyBroker(addr, req) })
	}
}

// notifyBroker sends one notification, giving up when Shutdown begins. The
// send runs on a helper goroutine because the remoting client dials a new
// connection without regard to ctx (for up to connectTimeoutMillis, 3 s):
// an unreachable broker would otherwise hold Shutdown that long. The helper
// ends by itself within the dial timeout.
func (c *Controller) notifyBroker(addr string, req *codec.RemotingCommand) {
	ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.client.InvokeOneway(ctx, addr, req) }()
	select {
	case err := <-done:
		if err != nil {
			c.lg.Warn("notify broker role changed failed", zap.String("brokerAddr", addr), zap.Error(err))
		}
	case <-c.stopCh:
	}
}

// channelListener turns a closed broker connection into an inactive broker.
type channelListener struct{ c *Controller }

func (l channelListener) OnChannelConnect(*remoting.Channel) {}
func (l channelListener) OnChannelIdle(*remoting.Channel)    {}

func (l channelListener) OnChannelClose(ch *remoting.Channel) {
	for _, id := range l.c.hb.OnChannelClose(ch) {
		l.c.goFunc(func() { l.c.onBrokerInactive(id) })
	}
}
