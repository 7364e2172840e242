package broker

// SlaveSynchronize (Java broker/slave/SlaveSynchronize + the schedule in
// BrokerController.handleSlaveSynchronize, 4.9.8): a slave pulls topics,
// consumer offsets, delay offsets and subscription groups from its master
// every 10 s (first after 3 s) and persists them in Apache's files. It also
// runs right after the slave's HA connection to a master is established.
//
// Consumer offsets are reconciled instead of overwritten (apache/rocketmq
// #1094; the rule is in broker/ha/doc.go): the slave fetches the master's
// offsets with reset marks (private code haGetConsumerOffsetMarks), pushes
// back entries it holds larger (haMergeConsumerOffset: committed on the
// slave while the master was down), then merges the master's table
// (newer reset wins, else larger offset wins). Against a master without the
// private codes (Java) it falls back to Java's GET_ALL_CONSUMER_OFFSET
// overwrite.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/offset"
	"github.com/rocketmq-go/rmq/internal/service"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// Private request codes (not Apache RocketMQ's) for offset reconciliation
// between a master and its slave. A Java broker answers them with
// REQUEST_CODE_NOT_SUPPORTED.
const (
	haGetConsumerOffsetMarks int32 = 9094 // body: offsetMarks (the whole table)
	haMergeConsumerOffset    int32 = 9095 // body: offsetMarks to merge, never lowering
)

const (
	slaveSyncFirstDelay = 3 * time.Second
	slaveSyncPeriod     = 10 * time.Second
	slaveSyncTick       = 500 * time.Millisecond
	slaveSyncTimeout    = 3 * time.Second
)

// offsetMarks is the private body: "topic@group" -> queueId -> entry.
type offsetMarks map[string]map[int32]offset.Entry

func init() { processorFamilies = append(processorFamilies, wireSlaveSync) }

func wireSlaveSync(b *Broker) {
	b.registerProcessor(haGetConsumerOffsetMarks, remoting.ProcessorFunc(b.haGetConsumerOffsetMarks), b.Pools.Admin, true)
	b.registerProcessor(haMergeConsumerOffset, remoting.ProcessorFunc(b.haMergeConsumerOffset), b.Pools.Admin, true)
	if !b.IsSlave() && !b.Config().EnableControllerMode { // controller mode: any broker may become a slave
		return
	}
	s := &slaveSync{b: b}
	s.svc = service.New("SlaveSynchronize", slaveSyncTick, s.tick)
	if h := b.haService(); h != nil {
		h.SetOnMasterConnected(func(string) { s.force.Store(true); s.svc.Wakeup() })
	}
	b.addService(s.svc)
}

// slaveSync schedules syncAll at a fixed rate like Java's
// scheduleAtFixedRate (first 3 s after start, then every 10 s), plus an
// extra run right after each HA (re)connection.
type slaveSync struct {
	b     *Broker
	svc   *service.Service
	next  time.Time   // next periodic run; zero until the first tick
	force atomic.Bool // an HA connection was established: sync now
}

func (s *slaveSync) tick(ctx context.Context) {
	now := time.Now()
	if s.next.IsZero() {
		s.next = now.Add(slaveSyncFirstDelay - slaveSyncTick)
	}
	forced := s.force.Swap(false)
	due := !now.Before(s.next)
	if due {
		for !s.next.After(now) {
			s.next = s.next.Add(slaveSyncPeriod)
		}
	}
	if !forced && !due {
		return
	}
	if forced && s.b.MasterAddr() == "" {
		// The master just came back: learn its address now rather than at
		// the next periodic registration.
		s.b.registerBrokerAll(ctx, true, false, true)
	}
	s.b.SyncAll(ctx)
}

// SyncAll is SlaveSynchronize.syncAll: topics, consumer offsets, delay
// offsets and subscription groups from the master (no-op without a master
// address or when it is this broker).
func (b *Broker) SyncAll(ctx context.Context) {
	master := b.MasterAddr()
	if master == "" || master == b.BrokerAddr() {
		return
	}
	for _, step := range []struct {
		what string
		f    func(context.Context, string) error
	}{
		{"topicConfig", b.syncTopicConfig},
		{"consumerOffset", b.syncConsumerOffset},
		{"delayOffset", b.syncDelayOffset},
		{"subscriptionGroupConfig", b.syncSubscriptionGroupConfig},
	} {
		if err := step.f(ctx, master); err != nil {
			b.lg.Warn("slave sync failed", zap.String("what", step.what), zap.String("masterAddr", master), zap.Error(err))
		}
	}
}

// vipChannel is Java MixAll.brokerVIPChannel: the master's fast port
// (listen port - 2). With an ephemeral listen port (tests) the master's fast
// port cannot be derived, so the main address is used.
func (b *Broker) vipChannel(addr string) string {
	if b.srvCfg.ListenPort == 0 {
		return addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 2 {
		return addr
	}
	return net.JoinHostPort(host, strconv.Itoa(p-2))
}

func (b *Broker) syncTopicConfig(ctx context.Context, master string) error {
	w, err := b.outAPI.GetAllTopicConfig(ctx, b.vipChannel(master))
	if err != nil {
		return err
	}
	if b.topics.SyncFromMaster(w) {
		b.lg.Info("update slave topic config from master", zap.String("masterAddr", master))
	}
	return nil
}

func (b *Broker) syncSubscriptionGroupConfig(ctx context.Context, master string) error {
	w, err := b.outAPI.GetAllSubscriptionGroupConfig(ctx, master)
	if err != nil {
		return err
	}
	if b.subs.SyncFromMaster(w) {
		b.lg.Info("update slave subscription group config from master", zap.String("masterAddr", master))
	}
	return nil
}

func (b *Broker) syncDelayOffset(ctx context.Context, master string) error {
	data, err := b.outAPI.GetAllDelayOffset(ctx, master)
	if err != nil {
		return err
	}
	t := b.DelayOffsets()
	if t == nil {
		return errors.New("broker: no delay offset table")
	}
	return t.StoreRaw(data)
}

// syncConsumerOffset reconciles the offset tables (see the file comment).
func (b *Broker) syncConsumerOffset(ctx context.Context, master string) error {
	marks, err := b.fetchOffsetMarks(ctx, master)
	if errors.Is(err, errNoOffsetMarks) {
		w, err := b.outAPI.GetAllConsumerOffset(ctx, master)
		if err != nil {
			return err
		}
		b.offsets.PutAll(w)
		return b.offsets.Persist()
	}
	if err != nil {
		return err
	}
	if push := newerLocalOffsets(b.offsets.Snapshot(), marks); len(push) > 0 {
		if err := b.pushOffsetMarks(ctx, master, push); err != nil {
			return err
		}
		b.lg.Info("pushed offsets committed on the slave to the master", zap.Int("keys", len(push)), zap.String("masterAddr", master))
	}
	if n := b.offsets.Merge(marks); n > 0 {
		b.lg.Debug("merged master consumer offsets", zap.Int("changed", n))
	}
	return b.offsets.Persist()
}

// newerLocalOffsets picks the local entries the master must learn: larger
// than the master's (or unknown to it), unless the master's entry carries a
// newer reset. Reset marks are dropped: a pushed offset never counts as a
// reset on the master.
func newerLocalOffsets(local, master offsetMarks) offsetMarks {
	out := offsetMarks{}
	for key, qs := range local {
		for qid, e := range qs {
			m, ok := master[key][qid]
			if ok && (e.Offset <= m.Offset || m.ResetAt > e.ResetAt) {
				continue
			}
			if out[key] == nil {
				out[key] = map[int32]offset.Entry{}
			}
			out[key][qid] = offset.Entry{Offset: e.Offset}
		}
	}
	return out
}

var errNoOffsetMarks = errors.New("broker: master does not serve offset marks")

func (b *Broker) fetchOffsetMarks(ctx context.Context, master string) (offsetMarks, error) {
	ctx, cancel := context.WithTimeout(ctx, slaveSyncTimeout)
	defer cancel()
	resp, err := b.outAPI.Client().InvokeSync(ctx, master, codec.NewRequest(haGetConsumerOffsetMarks, nil, nil))
	if err != nil {
		return nil, err
	}
	if resp.Code == code.RequestCodeNotSupported {
		return nil, errNoOffsetMarks
	}
	if resp.Code != code.Success {
		return nil, fmt.Errorf("broker: offset marks: code %d remark %q", resp.Code, resp.Remark)
	}
	var m offsetMarks
	if err := json.Unmarshal(resp.Body, &m); err != nil {
		return nil, fmt.Errorf("broker: offset marks body: %w", err)
	}
	return m, nil
}

func (b *Broker) pushOffsetMarks(ctx context.Context, master string, m offsetMarks) error {
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, slaveSyncTimeout)
	defer cancel()
	resp, err := b.outAPI.Client().InvokeSync(ctx, master, codec.NewRequest(haMergeConsumerOffset, nil, data))
	if err != nil {
		return err
	}
	if resp.Code != code.Success {
		return fmt.Errorf("broker: merge offsets on master: code %d remark %q", resp.Code, resp.Remark)
	}
	return nil
}

// haGetConsumerOffsetMarks answers the whole offset table with reset marks.
func (b *Broker) haGetConsumerOffsetMarks(*remoting.Context, *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	data, err := json.Marshal(offsetMarks(b.offsets.Snapshot()))
	if err != nil {
		return nil, err
	}
	resp := codec.NewResponse(code.Success, "")
	resp.Body = data
	return resp, nil
}

// haMergeConsumerOffset merges a slave's newer offsets: marks are ignored,
// so an entry only moves forward, and not over a local reset.
func (b *Broker) haMergeConsumerOffset(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var m offsetMarks
	if err := json.Unmarshal(req.Body, &m); err != nil {
		return nil, remoting.NewError(code.SystemError, "bad offset body: "+err.Error())
	}
	for _, qs := range m {
		for qid, e := range qs {
			qs[qid] = offset.Entry{Offset: e.Offset}
		}
	}
	n := b.offsets.Merge(m)
	b.lg.Info("merged consumer offsets from a slave", zap.String("remoteAddr", ctx.Channel.RemoteAddr()), zap.Int("changed", n))
	if err := b.offsets.Persist(); err != nil {
		return nil, err
	}
	return codec.NewResponse(code.Success, ""), nil
}
