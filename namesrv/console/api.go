package console

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/rocketmq-go/rmq/internal/admin"
	"github.com/rocketmq-go/rmq/remoting/body"
)

// fanOut bounds the admin calls one API request runs at once.
const fanOut = 8

// Broker is one row of /api/cluster.
type Broker struct {
	Cluster          string  `json:"cluster"`
	BrokerName       string  `json:"brokerName"`
	BrokerID         int64   `json:"brokerId"`
	Role             string  `json:"role"`
	Addr             string  `json:"addr"`
	Version          string  `json:"version"`
	PutTps           float64 `json:"putTps"`
	GetTps           float64 `json:"getTps"`
	DiskRatio        float64 `json:"diskRatio"`
	MsgPutTotalToday int64   `json:"msgPutTotalToday"`
	MsgGetTotalToday int64   `json:"msgGetTotalToday"`
	Error            string  `json:"error,omitempty"`
}

// Cluster is /api/cluster.
type Cluster struct {
	Namesrv []string `json:"namesrv"`
	Brokers []Broker `json:"brokers"`
}

func (c *Console) clusterAPI(ctx context.Context, _ *http.Request) (any, error) {
	return c.cluster(ctx)
}

// cluster lists every broker of the cluster info with its runtime figures.
func (c *Console) cluster(ctx context.Context) (*Cluster, error) {
	a := c.admin()
	ci, err := a.ClusterInfo(ctx)
	if err != nil {
		return nil, err
	}
	out := &Cluster{Namesrv: c.cfg.Namesrv(), Brokers: []Broker{}}
	for name, bd := range ci.BrokerAddrTable {
		if bd == nil {
			continue
		}
		for id, addr := range bd.BrokerAddrs {
			role := "MASTER"
			if id != 0 {
				role = "SLAVE"
			}
			out.Brokers = append(out.Brokers, Broker{Cluster: bd.Cluster, BrokerName: name, BrokerID: id, Role: role, Addr: addr})
		}
	}
	slices.SortFunc(out.Brokers, func(x, y Broker) int {
		return cmp.Or(cmp.Compare(x.Cluster, y.Cluster), cmp.Compare(x.BrokerName, y.BrokerName), cmp.Compare(x.BrokerID, y.BrokerID))
	})
	each(len(out.Brokers), func(i int) {
		b := &out.Brokers[i]
		info, err := a.BrokerRuntimeInfo(ctx, b.Addr)
		if err != nil {
			b.Error = err.Error()
			return
		}
		b.Version = info["brokerVersionDesc"]
		b.PutTps = firstFloat(info["putTps"])
		b.GetTps = firstFloat(info["getTransferedTps"])
		b.DiskRatio = firstFloat(info["commitLogDiskRatio"])
		b.MsgPutTotalToday = firstInt(info["msgPutTotalTodayNow"])
		b.MsgGetTotalToday = firstInt(info["msgGetTotalTodayNow"])
	})
	return out, nil
}

// each runs f(0..n-1) at most fanOut at a time and waits for all.
func each(n int, f func(i int)) {
	sem := make(chan struct{}, fanOut)
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			f(i)
		})
	}
	wg.Wait()
}

// firstFloat parses the first figure of a runtime-info value ("12.50 3.10
// 0.80" holds the 10 s, 1 min and 10 min rates); 0 when absent.
func firstFloat(s string) float64 {
	f, _ := strconv.ParseFloat(firstField(s), 64)
	return f
}

func firstInt(s string) int64 {
	n, _ := strconv.ParseInt(firstField(s), 10, 64)
	return n
}

func firstField(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

// TopicItem is one row of /api/topics.
type TopicItem struct {
	Name   string `json:"name"`
	System bool   `json:"system"`
}

func (c *Console) topicsAPI(ctx context.Context, _ *http.Request) (any, error) {
	a := c.admin()
	names, err := a.TopicList(ctx)
	if err != nil {
		return nil, err
	}
	// 4.9 brokers also register a topic named after their cluster, one
	// after themselves and the cluster's reply topic: system topics too.
	own := map[string]bool{}
	if ci, err := a.ClusterInfo(ctx); err == nil {
		for name := range ci.BrokerAddrTable {
			own[name] = true
		}
		for cluster := range ci.ClusterAddrTable {
			own[cluster] = true
			own[cluster+"_REPLY_TOPIC"] = true // MixAll.getReplyTopic, made by the broker for request-reply
		}
	}
	items := make([]TopicItem, len(names))
	for i, n := range names {
		items[i] = TopicItem{Name: n, System: own[n] || admin.IsSystemTopic(n)}
	}
	return map[string]any{"topics": items}, nil
}

// QueueStat is one queue of /api/topic.
type QueueStat struct {
	BrokerName          string `json:"brokerName"`
	QueueID             int32  `json:"queueId"`
	MinOffset           int64  `json:"minOffset"`
	MaxOffset           int64  `json:"maxOffset"`
	Messages            int64  `json:"messages"`
	LastUpdateTimestamp int64  `json:"lastUpdateTimestamp"`
}

// RouteBroker is one broker group of a topic's route.
type RouteBroker struct {
	Cluster    string           `json:"cluster"`
	BrokerName string           `json:"brokerName"`
	Addrs      map[int64]string `json:"addrs"`
}

// Topic is /api/topic.
type Topic struct {
	Topic         string           `json:"topic"`
	QueueDatas    []body.QueueData `json:"queueDatas"`
	Brokers       []RouteBroker    `json:"brokers"`
	Queues        []QueueStat      `json:"queues"`
	TotalMessages int64            `json:"totalMessages"`
	StatsError    string           `json:"statsError,omitempty"`
}

func (c *Console) topicAPI(ctx context.Context, r *http.Request) (any, error) {
	name := r.URL.Query().Get("name")
	if name == "" {
		return nil, badRequest("name is required")
	}
	a := c.admin()
	rd, err := a.TopicRoute(ctx, name)
	if err != nil {
		return nil, err
	}
	out := &Topic{Topic: name, QueueDatas: slices.Clone(rd.QueueDatas), Brokers: []RouteBroker{}, Queues: []QueueStat{}}
	slices.SortFunc(out.QueueDatas, func(x, y body.QueueData) int { return cmp.Compare(x.BrokerName, y.BrokerName) })
	for _, bd := range rd.BrokerDatas {
		out.Brokers = append(out.Brokers, RouteBroker{Cluster: bd.Cluster, BrokerName: bd.BrokerName, Addrs: bd.BrokerAddrs})
	}
	slices.SortFunc(out.Brokers, func(x, y RouteBroker) int { return cmp.Compare(x.BrokerName, y.BrokerName) })
	stats, err := a.TopicStats(ctx, name)
	if err != nil {
		out.StatsError = err.Error()
	}
	for mq, off := range stats {
		n := off.MaxOffset - off.MinOffset
		out.Queues = append(out.Queues, QueueStat{BrokerName: mq.BrokerName, QueueID: mq.QueueID, MinOffset: off.MinOffset,
			MaxOffset: off.MaxOffset, Messages: n, LastUpdateTimestamp: off.LastUpdateTimestamp})
		out.TotalMessages += n
	}
	slices.SortFunc(out.Queues, func(x, y QueueStat) int {
		return cmp.Or(cmp.Compare(x.BrokerName, y.BrokerName), cmp.Compare(x.QueueID, y.QueueID))
	})
	return out, nil
}

// GroupItem is one row of /api/groups.
type GroupItem struct {
	Name       string  `json:"name"`
	System     bool    `json:"system"`
	Members    int     `json:"members"`
	TotalLag   int64   `json:"totalLag"`
	ConsumeTps float64 `json:"consumeTps"`
	Error      string  `json:"error,omitempty"`
}

func (c *Console) groupsAPI(ctx context.Context, _ *http.Request) (any, error) {
	items, err := c.groups(ctx, true, -1)
	if err != nil {
		return nil, err
	}
	return map[string]any{"groups": items}, nil
}

// groups lists the subscription groups of every broker group; for the
// groups that are not the brokers' own (the first limit of them by name
// when limit >= 0) it adds lag and TPS, and members when withMembers.
func (c *Console) groups(ctx context.Context, withMembers bool, limit int) ([]GroupItem, error) {
	a := c.admin()
	ci, err := a.ClusterInfo(ctx)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	var errs []error
	for _, bd := range ci.BrokerAddrTable {
		if bd == nil {
			continue
		}
		addr := admin.SelectBrokerAddr(bd)
		if addr == "" {
			continue
		}
		w, err := a.SubscriptionGroups(ctx, addr)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for g := range w.SubscriptionGroupTable {
			names[g] = true
		}
	}
	if len(names) == 0 && len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	items := make([]GroupItem, 0, len(names))
	for g := range names {
		items = append(items, GroupItem{Name: g, System: admin.IsSystemGroup(g)})
	}
	slices.SortFunc(items, func(x, y GroupItem) int { return cmp.Compare(x.Name, y.Name) })
	var todo []*GroupItem
	for i := range items {
		if !items[i].System && (limit < 0 || len(todo) < limit) {
			todo = append(todo, &items[i])
		}
	}
	each(len(todo), func(i int) {
		it := todo[i]
		cs, err := a.ConsumeStats(ctx, it.Name, "")
		switch {
		case err == nil:
			it.TotalLag, it.ConsumeTps = cs.ComputeTotalDiff(), cs.ConsumeTps
		case !errors.Is(err, admin.ErrNotOnline):
			it.Error = err.Error()
		}
		if !withMembers {
			return
		}
		if cc, err := a.ConsumerConnection(ctx, it.Name); err == nil {
			it.Members = len(cc.ConnectionSet)
		}
	})
	return items, nil
}

// QueueLag is one queue of /api/group.
type QueueLag struct {
	Topic          string `json:"topic"`
	BrokerName     string `json:"brokerName"`
	QueueID        int32  `json:"queueId"`
	BrokerOffset   int64  `json:"brokerOffset"`
	ConsumerOffset int64  `json:"consumerOffset"`
	Lag            int64  `json:"lag"`
	LastTimestamp  int64  `json:"lastTimestamp"`
}

// Member is one connected consumer of /api/group.
type Member struct {
	ClientID   string `json:"clientId"`
	ClientAddr string `json:"clientAddr"`
	Language   string `json:"language"`
	Version    int32  `json:"version"`
}

// Subscription is one subscribed topic of /api/group.
type Subscription struct {
	Topic      string `json:"topic"`
	Expression string `json:"expression"`
	Type       string `json:"type"`
}

// Group is /api/group.
type Group struct {
	Group            string         `json:"group"`
	ConsumeTps       float64        `json:"consumeTps"`
	TotalLag         int64          `json:"totalLag"`
	Queues           []QueueLag     `json:"queues"`
	Members          []Member       `json:"members"`
	Subscriptions    []Subscription `json:"subscriptions"`
	ConsumeType      string         `json:"consumeType"`
	MessageModel     string         `json:"messageModel"`
	ConsumeFromWhere string         `json:"consumeFromWhere"`
	StatsError       string         `json:"statsError,omitempty"`
}

func (c *Console) groupAPI(ctx context.Context, r *http.Request) (any, error) {
	name := r.URL.Query().Get("name")
	if name == "" {
		return nil, badRequest("name is required")
	}
	a := c.admin()
	out := &Group{Group: name, Queues: []QueueLag{}, Members: []Member{}, Subscriptions: []Subscription{}}
	cs, err := a.ConsumeStats(ctx, name, "")
	if err != nil && !errors.Is(err, admin.ErrNotOnline) {
		out.StatsError = err.Error()
	}
	if cs != nil {
		out.ConsumeTps, out.TotalLag = cs.ConsumeTps, cs.ComputeTotalDiff()
		for mq, w := range cs.OffsetTable {
			out.Queues = append(out.Queues, QueueLag{Topic: mq.Topic, BrokerName: mq.BrokerName, QueueID: mq.QueueID,
				BrokerOffset: w.BrokerOffset, ConsumerOffset: w.ConsumerOffset, Lag: w.BrokerOffset - w.ConsumerOffset,
				LastTimestamp: w.LastTimestamp})
		}
	}
	slices.SortFunc(out.Queues, func(x, y QueueLag) int {
		return cmp.Or(cmp.Compare(x.Topic, y.Topic), cmp.Compare(x.BrokerName, y.BrokerName), cmp.Compare(x.QueueID, y.QueueID))
	})
	if cc, err := a.ConsumerConnection(ctx, name); err == nil {
		out.ConsumeType, out.MessageModel, out.ConsumeFromWhere = cc.ConsumeType, cc.MessageModel, cc.ConsumeFromWhere
		for _, m := range cc.ConnectionSet {
			out.Members = append(out.Members, Member{ClientID: m.ClientID, ClientAddr: m.ClientAddr, Language: m.Language, Version: m.Version})
		}
		for topic, sd := range cc.SubscriptionTable {
			out.Subscriptions = append(out.Subscriptions, Subscription{Topic: topic, Expression: sd.SubString, Type: sd.ExpressionType})
		}
	}
	slices.SortFunc(out.Members, func(x, y Member) int { return cmp.Compare(x.ClientID, y.ClientID) })
	slices.SortFunc(out.Subscriptions, func(x, y Subscription) int { return cmp.Compare(x.Topic, y.Topic) })
	return out, nil
}
