package outapi

// Mirrors org.apache.rocketmq.broker.out.BrokerOuterAPI (4.9.8).

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"sync"
	"time"

	jsoniter "github.com/json-iterator/go"
	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// masterCallTimeout is the 3 s Java uses for unregister and the slave calls.
const masterCallTimeout = 3 * time.Second

// ErrResponse is wrapped by errors describing a non-SUCCESS answer.
var ErrResponse = errors.New("outapi: unexpected response")

// API is the broker's outbound client (Java BrokerOuterAPI).
type API struct {
	cli *remoting.Client
	lg  *zap.Logger
}

// New builds the API on its own remoting client. A nil logger is allowed.
func New(cfg *remoting.NettyClientConfig, lg *zap.Logger) *API {
	if lg == nil {
		lg = zap.NewNop()
	}
	if cfg == nil {
		cfg = remoting.NewNettyClientConfig()
	}
	return &API{cli: remoting.NewClient(cfg, lg.Named("client")), lg: lg}
}

// Client returns the underlying remoting client.
func (a *API) Client() *remoting.Client { return a.cli }

// Shutdown closes every connection.
func (a *API) Shutdown(ctx context.Context) error { return a.cli.Shutdown(ctx) }

// BrokerIdentity names the registering broker.
type BrokerIdentity struct {
	ClusterName string
	BrokerAddr  string
	BrokerName  string
	BrokerID    int64
}

// RegisterRequest is one registerBrokerAll call.
type RegisterRequest struct {
	BrokerIdentity
	HAServerAddr     string
	Topics           *body.TopicConfigSerializeWrapper
	FilterServerList []string
	Oneway           bool
	Compressed       bool
	Timeout          time.Duration
}

// RegisterResult is what one name server answered.
type RegisterResult struct {
	NamesrvAddr string
	body.RegisterBrokerResult
}

// RegisterBrokerAll registers with every name server in parallel and waits
// up to req.Timeout for the answers (oneway: for the sends). Failures are
// logged and left out of the results.
func (a *API) RegisterBrokerAll(ctx context.Context, namesrvs []string, req RegisterRequest) []RegisterResult {
	if len(namesrvs) == 0 {
		return nil
	}
	payload := &body.RegisterBrokerBody{TopicConfigSerializeWrapper: *req.Topics, FilterServerList: req.FilterServerList}
	data, err := payload.Encode(req.Compressed)
	if err != nil {
		a.lg.Error("encode register broker body", zap.Error(err))
		return nil
	}
	h := &header.RegisterBrokerRequestHeader{
		BrokerName: req.BrokerName, BrokerAddr: req.BrokerAddr, ClusterName: req.ClusterName,
		HAServerAddr: req.HAServerAddr, BrokerID: req.BrokerID, Compressed: req.Compressed,
		BodyCrc32: int32(crc32.ChecksumIEEE(data) & 0x7FFFFFFF),
	}
	ext := h.ToExtFields()
	ctx, cancel := context.WithTimeout(ctx, req.Timeout)
	defer cancel()
	var (
		mu  sync.Mutex
		out []RegisterResult
		wg  sync.WaitGroup
	)
	for _, ns := range namesrvs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := a.registerBroker(ctx, ns, req.Oneway, codec.NewRequest(code.RegisterBroker, cloneExt(ext), data))
			if err != nil {
				a.lg.Warn("register broker failed", zap.String("namesrvAddr", ns), zap.Error(err))
				return
			}
			a.lg.Debug("register broker ok", zap.Int64("brokerId", req.BrokerID), zap.String("namesrvAddr", ns))
			if r != nil {
				mu.Lock()
				out = append(out, *r)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return out
}

func cloneExt(m map[string]string) map[string]string {
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func (a *API) registerBroker(ctx context.Context, ns string, oneway bool, req *codec.RemotingCommand) (*RegisterResult, error) {
	if oneway {
		return nil, a.cli.InvokeOneway(ctx, ns, req)
	}
	resp, err := a.cli.InvokeSync(ctx, ns, req)
	if err != nil {
		return nil, err
	}
	if resp.Code != code.Success {
		return nil, respErr(resp)
	}
	var rh header.RegisterBrokerResponseHeader
	if err := rh.FromExtFields(resp.ExtFields); err != nil {
		return nil, err
	}
	r := &RegisterResult{NamesrvAddr: ns}
	r.MasterAddr, r.HaServerAddr = rh.MasterAddr, rh.HAServerAddr
	if len(resp.Body) > 0 {
		kv, err := body.DecodeKVTable(resp.Body)
		if err != nil {
			return nil, err
		}
		r.KVTable = kv
	}
	return r, nil
}

func respErr(resp *codec.RemotingCommand) error {
	return fmt.Errorf("%w: code %d (%s) remark %q", ErrResponse, resp.Code, code.ResponseName(resp.Code), resp.Remark)
}

// UnregisterBrokerAll unregisters from each name server in turn (3 s each),
// logging failures.
func (a *API) UnregisterBrokerAll(ctx context.Context, namesrvs []string, id BrokerIdentity) {
	h := &header.UnRegisterBrokerRequestHeader{
		BrokerName: id.BrokerName, BrokerAddr: id.BrokerAddr, ClusterName: id.ClusterName, BrokerID: id.BrokerID,
	}
	for _, ns := range namesrvs {
		if err := a.UnregisterBroker(ctx, ns, h); err != nil {
			a.lg.Warn("unregister broker failed", zap.String("namesrvAddr", ns), zap.Error(err))
			continue
		}
		a.lg.Info("unregister broker ok", zap.String("namesrvAddr", ns))
	}
}

// UnregisterBroker sends UNREGISTER_BROKER to one name server.
func (a *API) UnregisterBroker(ctx context.Context, ns string, h *header.UnRegisterBrokerRequestHeader) error {
	ctx, cancel := context.WithTimeout(ctx, masterCallTimeout)
	defer cancel()
	resp, err := a.cli.InvokeSync(ctx, ns, codec.NewRequest(code.UnregisterBroker, h.ToExtFields(), nil))
	if err != nil {
		return err
	}
	if resp.Code != code.Success {
		return respErr(resp)
	}
	return nil
}

// NeedRegister asks every name server (QUERY_DATA_VERSION) whether it holds
// an older topic data version; true when any says so, answers with a
// different version, or fails (Java needRegister).
func (a *API) NeedRegister(ctx context.Context, namesrvs []string, id BrokerIdentity, dv body.DataVersion, timeout time.Duration) bool {
	h := &header.QueryDataVersionRequestHeader{
		BrokerName: id.BrokerName, BrokerAddr: id.BrokerAddr, ClusterName: id.ClusterName, BrokerID: id.BrokerID,
	}
	ext := h.ToExtFields()
	data := dv.Encode()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var (
		changed sync.Map
		wg      sync.WaitGroup
	)
	for _, ns := range namesrvs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if a.queryDataVersionChanged(ctx, ns, codec.NewRequest(code.QueryDataVersion, cloneExt(ext), data), dv) {
				changed.Store(ns, true)
			}
		}()
	}
	wg.Wait()
	found := false
	changed.Range(func(_, _ any) bool { found = true; return false })
	return found
}

func (a *API) queryDataVersionChanged(ctx context.Context, ns string, req *codec.RemotingCommand, dv body.DataVersion) bool {
	resp, err := a.cli.InvokeSync(ctx, ns, req)
	if err != nil {
		a.lg.Warn("query data version failed", zap.String("namesrvAddr", ns), zap.Error(err))
		return true
	}
	if resp.Code != code.Success {
		return false
	}
	var rh header.QueryDataVersionResponseHeader
	if err := rh.FromExtFields(resp.ExtFields); err != nil {
		return true
	}
	if len(resp.Body) > 0 {
		nv, err := body.DecodeDataVersion(resp.Body)
		if err != nil || nv.Timestamp != dv.Timestamp || nv.Counter != dv.Counter {
			return true
		}
	}
	return rh.Changed
}

// GetAllTopicConfig fetches the master's topic table (GET_ALL_TOPIC_CONFIG).
func (a *API) GetAllTopicConfig(ctx context.Context, addr string) (*body.TopicConfigSerializeWrapper, error) {
	data, err := a.callMaster(ctx, addr, code.GetAllTopicConfig)
	if err != nil {
		return nil, err
	}
	var w body.TopicConfigSerializeWrapper
	if err := unmarshalFastjson(data, &w); err != nil {
		return nil, fmt.Errorf("outapi: topic config body: %w", err)
	}
	return &w, nil
}

// GetAllConsumerOffset fetches the master's consumer offsets (GET_ALL_CONSUMER_OFFSET).
func (a *API) GetAllConsumerOffset(ctx context.Context, addr string) (*body.ConsumerOffsetSerializeWrapper, error) {
	data, err := a.callMaster(ctx, addr, code.GetAllConsumerOffset)
	if err != nil {
		return nil, err
	}
	var w body.ConsumerOffsetSerializeWrapper
	if err := w.Decode(data); err != nil {
		return nil, fmt.Errorf("outapi: consumer offset body: %w", err)
	}
	return &w, nil
}

// GetAllDelayOffset fetches the master's delayOffset.json content
// (GET_ALL_DELAY_OFFSET), raw as Java passes it on.
func (a *API) GetAllDelayOffset(ctx context.Context, addr string) ([]byte, error) {
	return a.callMaster(ctx, addr, code.GetAllDelayOffset)
}

// GetAllSubscriptionGroupConfig fetches the master's subscription groups
// (GET_ALL_SUBSCRIPTIONGROUP_CONFIG).
func (a *API) GetAllSubscriptionGroupConfig(ctx context.Context, addr string) (*body.SubscriptionGroupWrapper, error) {
	data, err := a.callMaster(ctx, addr, code.GetAllSubscriptiongroupConfig)
	if err != nil {
		return nil, err
	}
	var w body.SubscriptionGroupWrapper
	if err := w.Decode(data); err != nil {
		return nil, fmt.Errorf("outapi: subscription group body: %w", err)
	}
	return &w, nil
}

func (a *API) callMaster(ctx context.Context, addr string, c int32) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, masterCallTimeout)
	defer cancel()
	resp, err := a.cli.InvokeSync(ctx, addr, codec.NewRequest(c, nil, nil))
	if err != nil {
		return nil, err
	}
	if resp.Code != code.Success {
		return nil, respErr(resp)
	}
	return append([]byte(nil), resp.Body...), nil
}

func unmarshalFastjson(data []byte, v any) error {
	norm, err := body.Normalize(data)
	if err != nil {
		return err
	}
	return jsoniter.ConfigCompatibleWithStandardLibrary.Unmarshal(norm, v)
}
