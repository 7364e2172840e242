package filter

// ConsumerFilterData and ConsumerFilterManager mirror the Java classes of
// the same names (broker/filter), without the bloom filter.

import (
	"cmp"
	"errors"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/client"
	ifilter "github.com/rocketmq-go/rmq/internal/filter"
	"github.com/rocketmq-go/rmq/remoting/body"
)

// DefaultFilterDataCleanTimeSpan is how long dead filter data is kept
// (brokerConfig.filterDataCleanTimeSpan, 24 h).
const DefaultFilterDataCleanTimeSpan = 24 * time.Hour

// ConsumerFilterData is one group's compiled expression on one topic.
type ConsumerFilterData struct {
	ConsumerGroup  string
	Topic          string
	Expression     string
	ExpressionType string
	Compiled       *ifilter.Expression // immutable, shared
	BornTime       int64               // unix ms
	DeadTime       int64               // unix ms; 0 while alive
	ClientVersion  int64               // the subscription's subVersion
}

// IsDead reports whether the group stopped using this filter.
func (d *ConsumerFilterData) IsDead() bool { return d.DeadTime >= d.BornTime }

// IsMsgInLive reports whether a message stored at msgStoreTime came after
// the filter was born.
func (d *ConsumerFilterData) IsMsgInLive(msgStoreTime int64) bool { return msgStoreTime > d.BornTime }

// Build compiles a subscription expression (ConsumerFilterManager.build).
// TAG subscriptions have no filter data: (nil, nil). A compile error is
// returned as is.
func Build(topic, group, expression, exprType string, clientVersion int64, now time.Time) (*ConsumerFilterData, error) {
	if ifilter.IsTagType(exprType) {
		return nil, nil
	}
	compiled, err := ifilter.Compile(exprType, expression)
	if err != nil {
		return nil, err
	}
	return &ConsumerFilterData{ConsumerGroup: group, Topic: topic, Expression: expression, ExpressionType: exprType,
		Compiled: compiled, BornTime: now.UnixMilli(), ClientVersion: clientVersion}, nil
}

// ConsumerFilterManager keeps the SQL92 filters of all groups. It
// implements broker/client.FilterRegistry.
type ConsumerFilterManager struct {
	lg  *zap.Logger
	now func() time.Time

	mu      sync.RWMutex
	byTopic map[string]map[string]*ConsumerFilterData // topic -> group -> data
}

// NewConsumerFilterManager returns an empty manager; nil logger and clock
// mean no logging and time.Now.
func NewConsumerFilterManager(lg *zap.Logger, now func() time.Time) *ConsumerFilterManager {
	if lg == nil {
		lg = zap.NewNop()
	}
	if now == nil {
		now = time.Now
	}
	return &ConsumerFilterManager{lg: lg.Named("broker.filter"), now: now, byTopic: map[string]map[string]*ConsumerFilterData{}}
}

// Register records a heartbeat's subscriptions for group, then marks dead
// the group's filters on topics it no longer subscribes.
func (m *ConsumerFilterManager) Register(group string, subs []body.SubscriptionData) {
	for _, s := range subs {
		m.RegisterOne(s.Topic, group, s.SubString, s.ExpressionType, s.SubVersion)
	}
	nowMs := m.now().UnixMilli()
	m.mu.Lock()
	defer m.mu.Unlock()
	for topic, groups := range m.byTopic {
		d := groups[group]
		if d == nil || d.IsDead() || slices.ContainsFunc(subs, func(s body.SubscriptionData) bool { return s.Topic == topic }) {
			continue
		}
		d.DeadTime = nowMs
		m.lg.Info("consumer filter changed, make illegal topic dead", zap.String("group", group), zap.String("topic", topic))
	}
}

// RegisterOne records one subscription; true when the stored filter is new,
// changed or revived.
func (m *ConsumerFilterManager) RegisterOne(topic, group, expression, exprType string, clientVersion int64) bool {
	if ifilter.IsTagType(exprType) || expression == "" {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	groups := m.byTopic[topic]
	if groups == nil {
		groups = map[string]*ConsumerFilterData{}
		m.byTopic[topic] = groups
	}
	old := groups[group]
	if old != nil && clientVersion <= old.ClientVersion {
		if clientVersion == old.ClientVersion && old.IsDead() {
			old.DeadTime = 0
			return true
		}
		return false
	}
	if old != nil && old.Expression == expression && old.ExpressionType == exprType {
		old.ClientVersion = clientVersion
		old.DeadTime = 0
		return true
	}
	d, err := Build(topic, group, expression, exprType, clientVersion, m.now())
	if err != nil {
		m.lg.Error("parse error", zap.String("expression", expression), zap.String("topic", topic),
			zap.String("group", group), zap.Error(err))
		delete(groups, group) // a failed recompile drops the old filter; the pull reports it
		return false
	}
	groups[group] = d
	m.lg.Info("new consumer filter registered", zap.String("group", group), zap.String("topic", topic),
		zap.String("expression", expression))
	return true
}

// Unregister marks every filter of group dead.
func (m *ConsumerFilterManager) Unregister(group string) {
	nowMs := m.now().UnixMilli()
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, groups := range m.byTopic {
		if d := groups[group]; d != nil && !d.IsDead() {
			d.DeadTime = nowMs
			m.lg.Info("unregister consumer filter", zap.String("group", group), zap.String("topic", d.Topic))
		}
	}
}

// Get returns a copy of group's filter on topic, or nil.
func (m *ConsumerFilterManager) Get(topic, group string) *ConsumerFilterData {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if d := m.byTopic[topic][group]; d != nil {
		c := *d
		return &c
	}
	return nil
}

// GetByGroup returns copies of group's filters, sorted by topic.
func (m *ConsumerFilterManager) GetByGroup(group string) []*ConsumerFilterData {
	m.mu.RLock()
	defer m.mu.RUnlock()
	var out []*ConsumerFilterData
	for _, groups := range m.byTopic {
		if d := groups[group]; d != nil {
			c := *d
			out = append(out, &c)
		}
	}
	slices.SortFunc(out, func(a, b *ConsumerFilterData) int { return cmp.Compare(a.Topic, b.Topic) })
	return out
}

// GetByTopic returns copies of topic's filters, sorted by group.
func (m *ConsumerFilterManager) GetByTopic(topic string) []*ConsumerFilterData {
	m.mu.RLock()
	defer m.mu.RUnlock()
	var out []*ConsumerFilterData
	for _, d := range m.byTopic[topic] {
		c := *d
		out = append(out, &c)
	}
	slices.SortFunc(out, func(a, b *ConsumerFilterData) int { return cmp.Compare(a.ConsumerGroup, b.ConsumerGroup) })
	return out
}

// Clean drops filters dead for at least span (and topics left empty).
func (m *ConsumerFilterManager) Clean(span time.Duration) {
	nowMs := m.now().UnixMilli()
	m.mu.Lock()
	defer m.mu.Unlock()
	for topic, groups := range m.byTopic {
		for group, d := range groups {
			if d.IsDead() && nowMs-d.DeadTime >= span.Milliseconds() {
				delete(groups, group)
				m.lg.Info("remove filter consumer, died too long", zap.String("group", group), zap.String("topic", topic))
			}
		}
		if len(groups) == 0 {
			delete(m.byTopic, topic)
		}
	}
}

// errNoData is returned by Decode for a body without filterDataByTopic.
var errNoData = errors.New("filter: consumerFilter.json has no filterDataByTopic")

var _ client.FilterRegistry = (*ConsumerFilterManager)(nil)
