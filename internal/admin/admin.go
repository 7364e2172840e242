package admin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// Sentinel errors.
var (
	ErrNoNamesrv   = errors.New("admin: no name server address")
	ErrNoBroker    = errors.New("admin: no broker serves this")
	ErrNotFound    = errors.New("admin: not found")
	ErrNotOnline   = errors.New("admin: consumer group not online")
	ErrBadResponse = errors.New("admin: malformed response")
)

// retryGroupTopicPrefix is MixAll.RETRY_GROUP_TOPIC_PREFIX.
const retryGroupTopicPrefix = "%RETRY%"

// RetryTopic returns the retry topic of group.
func RetryTopic(group string) string { return retryGroupTopicPrefix + group }

// Admin issues admin requests to the name servers and the brokers they know.
type Admin struct {
	rc      *remoting.Client
	namesrv []string
}

// New returns an Admin that uses rc (owned by the caller) and asks the name
// servers in namesrv in turn until one answers.
func New(rc *remoting.Client, namesrv []string) *Admin {
	return &Admin{rc: rc, namesrv: slices.Clone(namesrv)}
}

// invoke sends a request and returns the response when its code is one of
// ok (SUCCESS when ok is empty); other codes become a *remoting.Error.
func (a *Admin) invoke(ctx context.Context, addr string, req *codec.RemotingCommand, ok ...int32) (*codec.RemotingCommand, error) {
	resp, err := a.rc.InvokeSync(ctx, addr, req)
	if err != nil {
		return nil, fmt.Errorf("admin: %s to %s: %w", code.RequestName(req.Code), addr, err)
	}
	if len(ok) == 0 {
		ok = []int32{code.Success}
	}
	if !slices.Contains(ok, resp.Code) {
		return nil, fmt.Errorf("admin: %s to %s: %w", code.RequestName(req.Code), addr, &remoting.Error{Code: resp.Code, Remark: resp.Remark})
	}
	return resp, nil
}

// invokeNamesrv asks each name server in turn and returns the first
// answer; a wire error (the name server answered) is not retried.
func (a *Admin) invokeNamesrv(ctx context.Context, c int32, ext map[string]string) (*codec.RemotingCommand, error) {
	if len(a.namesrv) == 0 {
		return nil, ErrNoNamesrv
	}
	var errs []error
	for _, addr := range a.namesrv {
		resp, err := a.invoke(ctx, addr, codec.NewRequest(c, ext, nil))
		var we *remoting.Error
		if err == nil || errors.As(err, &we) || ctx.Err() != nil {
			return resp, err
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

// ClusterInfo is GET_BROKER_CLUSTER_INFO (examineBrokerClusterInfo).
func (a *Admin) ClusterInfo(ctx context.Context) (*body.ClusterInfo, error) {
	resp, err := a.invokeNamesrv(ctx, code.GetBrokerClusterInfo, nil)
	if err != nil {
		return nil, err
	}
	ci, err := body.DecodeClusterInfo(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%w: cluster info: %w", ErrBadResponse, err)
	}
	return ci, nil
}

// TopicList is GET_ALL_TOPIC_LIST_FROM_NAMESERVER (fetchAllTopicList),
// sorted by name.
func (a *Admin) TopicList(ctx context.Context) ([]string, error) {
	resp, err := a.invokeNamesrv(ctx, code.GetAllTopicListFromNameserver, nil)
	if err != nil {
		return nil, err
	}
	tl, err := body.DecodeTopicList(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%w: topic list: %w", ErrBadResponse, err)
	}
	out := slices.Clone(tl.TopicList)
	slices.Sort(out)
	return slices.Compact(out), nil
}

// TopicRoute is GET_ROUTEINFO_BY_TOPIC (examineTopicRouteInfo). A topic
// the name server does not know is ErrNotFound.
func (a *Admin) TopicRoute(ctx context.Context, topic string) (*body.TopicRouteData, error) {
	resp, err := a.invokeNamesrv(ctx, code.GetRouteinfoByTopic, (&header.GetRouteInfoRequestHeader{Topic: topic}).ToExtFields())
	var we *remoting.Error
	if errors.As(err, &we) && we.Code == code.TopicNotExist {
		return nil, fmt.Errorf("%w: topic %q has no route", ErrNotFound, topic)
	}
	if err != nil {
		return nil, err
	}
	rd, err := body.DecodeTopicRouteData(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%w: route of %q: %w", ErrBadResponse, topic, err)
	}
	return rd, nil
}

// BrokerRuntimeInfo is GET_BROKER_RUNTIME_INFO (fetchBrokerRuntimeStats).
func (a *Admin) BrokerRuntimeInfo(ctx context.Context, addr string) (map[string]string, error) {
	resp, err := a.invoke(ctx, addr, codec.NewRequest(code.GetBrokerRuntimeInfo, nil, nil))
	if err != nil {
		return nil, err
	}
	kv, err := body.DecodeKVTable(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%w: runtime info of %s: %w", ErrBadResponse, addr, err)
	}
	if kv.Table == nil {
		kv.Table = map[string]string{}
	}
	return kv.Table, nil
}

// SubscriptionGroups is GET_ALL_SUBSCRIPTIONGROUP_CONFIG on one broker.
func (a *Admin) SubscriptionGroups(ctx context.Context, addr string) (*body.SubscriptionGroupWrapper, error) {
	resp, err := a.invoke(ctx, addr, codec.NewRequest(code.GetAllSubscriptiongroupConfig, nil, nil))
	if err != nil {
		return nil, err
	}
	var w body.SubscriptionGroupWrapper
	if err := w.Decode(resp.Body); err != nil {
		return nil, fmt.Errorf("%w: subscription groups of %s: %w", ErrBadResponse, addr, err)
	}
	return &w, nil
}

// SelectBrokerAddr is BrokerData.selectBrokerAddr without the randomness:
// the master's address, else the lowest-id slave's ("" when none).
func SelectBrokerAddr(bd *body.BrokerData) string {
	if addr := bd.BrokerAddrs[0]; addr != "" {
		return addr
	}
	ids := make([]int64, 0, len(bd.BrokerAddrs))
	for id := range bd.BrokerAddrs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if addr := bd.BrokerAddrs[id]; addr != "" {
			return addr
		}
	}
	return ""
}

// routeBrokers returns the address to ask of every broker group of topic's
// route, by broker name.
func (a *Admin) routeBrokers(ctx context.Context, topic string) (map[string]string, error) {
	rd, err := a.TopicRoute(ctx, topic)
	if err != nil {
		return nil, err
	}
	return selectAddrs(rd.BrokerDatas), nil
}

// clusterBrokers returns the address to ask of every broker group.
func (a *Admin) clusterBrokers(ctx context.Context) (map[string]string, error) {
	ci, err := a.ClusterInfo(ctx)
	if err != nil {
		return nil, err
	}
	bds := make([]body.BrokerData, 0, len(ci.BrokerAddrTable))
	for _, bd := range ci.BrokerAddrTable {
		if bd != nil {
			bds = append(bds, *bd)
		}
	}
	return selectAddrs(bds), nil
}

func selectAddrs(bds []body.BrokerData) map[string]string {
	out := make(map[string]string, len(bds))
	for i := range bds {
		if addr := SelectBrokerAddr(&bds[i]); addr != "" {
			out[bds[i].BrokerName] = addr
		}
	}
	return out
}

// groupBrokers returns the brokers to ask about group: those of its retry
// topic's route, or every broker group when the route is missing.
func (a *Admin) groupBrokers(ctx context.Context, group string) (map[string]string, error) {
	m, err := a.routeBrokers(ctx, RetryTopic(group))
	if errors.Is(err, ErrNotFound) || (err == nil && len(m) == 0) {
		return a.clusterBrokers(ctx)
	}
	return m, err
}

// sortedAddrs returns m's addresses ordered by broker name.
func sortedAddrs(m map[string]string) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = m[n]
	}
	return out
}

// IsSystemTopic reports the topics brokers create for themselves (TBW102,
// SCHEDULE_TOPIC_XXXX, RMQ_SYS_*, the self-test and benchmark topics) and
// the retry and dead-letter topics of groups.
func IsSystemTopic(topic string) bool {
	switch topic {
	case "TBW102", "SCHEDULE_TOPIC_XXXX", "BenchmarkTest", "OFFSET_MOVED_EVENT", "SELF_TEST_TOPIC",
		"TRANS_CHECK_MAX_TIME_TOPIC", "DefaultHeartBeatSyncerTopic":
		return true
	}
	return strings.HasPrefix(topic, "RMQ_SYS_") || strings.HasPrefix(topic, retryGroupTopicPrefix) ||
		strings.HasPrefix(topic, "%DLQ%") || strings.HasPrefix(topic, "rmq_sys_")
}

// IsSystemGroup reports the subscription groups every broker creates for
// itself (SubscriptionGroupManager's initial table and MixAll's CIDs).
func IsSystemGroup(group string) bool {
	switch group {
	case "TOOLS_CONSUMER", "FILTERSRV_CONSUMER", "SELF_TEST_C_GROUP", "CID_ONS-HTTP-PROXY",
		"CID_ONSAPI_PULL", "CID_ONSAPI_PERMISSION", "CID_ONSAPI_OWNER", "CID_RMQ_SYS_TRANS",
		"CID_SYS_RMQ_TRANS":
		return true
	}
	return strings.HasPrefix(group, "CID_RMQ_SYS_")
}
