package broker

// Name-server registration: BrokerController.registerBrokerAll,
// doRegisterBrokerAll, needRegister, registerIncrementBrokerData and
// unregisterBrokerAll (4.9.8), scheduled as in BrokerController.start.

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/outapi"
	"github.com/rocketmq-go/rmq/broker/topic"
	"github.com/rocketmq-go/rmq/remoting/body"
)

// registerInitialDelay is the 10 s before the first periodic registration
// (the start-up registration happens at once).
const registerInitialDelay = 10 * time.Second

// startRegistration registers once synchronously (Java start:
// registerBrokerAll(true, false, true)), then runs the periodic loop: every
// RegisterPeriod (forceRegister or when a name server's data version
// differs) and at once, oneway and forced, when kicked by a topic change.
func (b *Broker) startRegistration() {
	b.registerBrokerAll(context.Background(), true, false, true)
	b.goFunc(b.registerLoop)
}

func (b *Broker) registerLoop() {
	t := time.NewTimer(registerInitialDelay)
	defer t.Stop()
	for {
		select {
		case <-b.stopCh:
			return
		case <-b.registerKick:
			b.registerBrokerAll(context.Background(), false, true, true)
		case <-t.C:
			b.registerBrokerAll(context.Background(), true, false, b.Config().ForceRegister)
			t.Reset(b.Config().RegisterPeriod())
		}
	}
}

// RegisterBrokerAll registers the full topic table with every name server
// now (checkOrderConfig, forced). oneway sends without waiting for answers.
// It is what admin processors call after topic changes.
func (b *Broker) RegisterBrokerAll(oneway bool) {
	b.registerBrokerAll(context.Background(), true, oneway, true)
}

// kickRegister asks the register loop for a oneway forced registration
// (topic auto-created on send, retry topic created...), never blocking.
func (b *Broker) kickRegister() {
	select {
	case b.registerKick <- struct{}{}:
	default:
	}
}

func (b *Broker) identity() outapi.BrokerIdentity {
	c := b.Config()
	return outapi.BrokerIdentity{
		ClusterName: c.BrokerClusterName, BrokerAddr: b.BrokerAddr(), BrokerName: c.BrokerName, BrokerID: c.BrokerID,
	}
}

// registerBrokerAll is BrokerController.registerBrokerAll: with brokerPermission
// not read-write every topic is registered with the broker's permission.
// It returns the first name server's answer (nil when none, when oneway or
// when skipped). In controller mode an isolated broker (no role yet, or
// fenced) does not register, as 5.x's isIsolated.
func (b *Broker) registerBrokerAll(ctx context.Context, checkOrderConfig, oneway, force bool) *outapi.RegisterResult {
	b.registerMu.Lock()
	defer b.registerMu.Unlock()
	if b.shutdown.Load() || b.isolated() {
		return nil // unregistered already; never register again
	}
	w := b.topics.BuildTopicConfigSerializeWrapper()
	b.applyBrokerPermission(w)
	c := b.Config()
	timeout := time.Duration(c.RegisterBrokerTimeoutMills) * time.Millisecond
	if !force && !b.outAPI.NeedRegister(ctx, c.NamesrvAddrList(), b.identity(), w.DataVersion, timeout) {
		return nil
	}
	return b.doRegisterBrokerAll(ctx, checkOrderConfig, oneway, w)
}

func (b *Broker) applyBrokerPermission(w *body.TopicConfigSerializeWrapper) {
	perm := int32(b.Config().BrokerPermission)
	if topic.IsWriteable(perm) && topic.IsReadable(perm) {
		return
	}
	for name, tc := range w.TopicConfigTable {
		w.TopicConfigTable[name] = body.TopicConfig{
			TopicName: tc.TopicName, ReadQueueNums: tc.ReadQueueNums, WriteQueueNums: tc.WriteQueueNums,
			Perm: perm, TopicFilterType: body.NewTopicConfig(name).TopicFilterType,
		}
	}
}

// RegisterIncrementBrokerData registers a single topic with the current data
// version (Java registerIncrementBrokerData, used by UPDATE_AND_CREATE_TOPIC).
func (b *Broker) RegisterIncrementBrokerData(tc body.TopicConfig, dv body.DataVersion) {
	b.registerMu.Lock()
	defer b.registerMu.Unlock()
	if b.isolated() {
		return
	}
	w := &body.TopicConfigSerializeWrapper{
		TopicConfigTable: map[string]body.TopicConfig{tc.TopicName: tc},
		DataVersion:      dv,
	}
	b.applyBrokerPermission(w)
	b.doRegisterBrokerAll(context.Background(), true, false, w)
}

func (b *Broker) doRegisterBrokerAll(ctx context.Context, checkOrderConfig, oneway bool, w *body.TopicConfigSerializeWrapper) *outapi.RegisterResult {
	c := b.Config()
	results := b.outAPI.RegisterBrokerAll(ctx, c.NamesrvAddrList(), outapi.RegisterRequest{
		BrokerIdentity:   b.identity(),
		HAServerAddr:     b.HAServerAddr(),
		Topics:           w,
		FilterServerList: []string{},
		Oneway:           oneway,
		Compressed:       c.CompressedRegister,
		Timeout:          time.Duration(c.RegisterBrokerTimeoutMills) * time.Millisecond,
	})
	if len(results) == 0 {
		return nil
	}
	r := results[0]
	// In controller mode the controller names the master; the name
	// server's answer may still name the previous one (role.go checks it).
	if b.ctl == nil {
		if r.HaServerAddr != "" && b.HA != nil && b.IsSlave() && b.storeCfg.HAMasterAddress == "" {
			b.HA.UpdateMasterAddress(r.HaServerAddr)
		}
		b.SetMasterAddr(r.MasterAddr)
	}
	if r.HaServerAddr != "" {
		b.haServerAddr.Store(&r.HaServerAddr)
	}
	if checkOrderConfig && r.KVTable != nil {
		b.topics.UpdateOrderTopicConfig(r.KVTable.Table)
	}
	b.lg.Debug("registered with name servers", zap.Int("answers", len(results)), zap.String("masterAddr", r.MasterAddr))
	return &r
}

// MasterHAServerAddr is the master's HA address a slave learnt from its last
// registration ("" before that or on a master).
func (b *Broker) MasterHAServerAddr() string {
	if p := b.haServerAddr.Load(); p != nil {
		return *p
	}
	return ""
}

// unregisterAll is BrokerController.unregisterBrokerAll (first step of
// shutdown).
func (b *Broker) unregisterAll(ctx context.Context) {
	b.outAPI.UnregisterBrokerAll(ctx, b.Config().NamesrvAddrList(), b.identity())
}
