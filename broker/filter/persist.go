package filter

// consumerFilter.json (ConsumerFilterManager.encode / decode), written in the
// fastjson bean layout without the bloom-filter fields. A Java broker reading
// this file ignores it (its bloom check fails) and rebuilds from heartbeats.

import (
	"slices"
	"strconv"
	"time"

	"go.uber.org/zap"

	jsoniter "github.com/json-iterator/go"
	ifilter "github.com/rocketmq-go/rmq/internal/filter"
	"github.com/rocketmq-go/rmq/remoting/body"
)

// deadOnLoad is how long before load a persisted live filter is taken to
// have died (Java: now - 30 s, but not before its birth).
const deadOnLoad = 30 * time.Second

// Encode writes consumerFilter.json (compact), topics and groups sorted.
func (m *ConsumerFilterManager) Encode() []byte {
	m.mu.RLock()
	defer m.mu.RUnlock()
	b := []byte(`{"filterDataByTopic":{`)
	topics := make([]string, 0, len(m.byTopic))
	for t := range m.byTopic {
		topics = append(topics, t)
	}
	slices.Sort(topics)
	for i, topic := range topics {
		if i > 0 {
			b = append(b, ',')
		}
		b = body.AppendKey(b, topic, false)
		b = append(b, `{"groupFilterData":{`...)
		groups := m.byTopic[topic]
		names := make([]string, 0, len(groups))
		for g := range groups {
			names = append(names, g)
		}
		slices.Sort(names)
		for j, g := range names {
			if j > 0 {
				b = append(b, ',')
			}
			b = body.AppendKey(b, g, false)
			b = appendFilterData(b, groups[g])
		}
		b = append(b, `},"topic":`...)
		b = body.AppendString(b, topic, false)
		b = append(b, '}')
	}
	return append(b, "}}"...)
}

func appendFilterData(b []byte, d *ConsumerFilterData) []byte {
	b = append(b, `{"bornTime":`...)
	b = strconv.AppendInt(b, d.BornTime, 10)
	b = append(b, `,"clientVersion":`...)
	b = strconv.AppendInt(b, d.ClientVersion, 10)
	b = append(b, `,"consumerGroup":`...)
	b = body.AppendString(b, d.ConsumerGroup, false)
	b = append(b, `,"dead":`...)
	b = strconv.AppendBool(b, d.IsDead())
	b = append(b, `,"deadTime":`...)
	b = strconv.AppendInt(b, d.DeadTime, 10)
	b = append(b, `,"expression":`...)
	b = body.AppendString(b, d.Expression, false)
	b = append(b, `,"expressionType":`...)
	b = body.AppendString(b, d.ExpressionType, false)
	b = append(b, `,"topic":`...)
	b = body.AppendString(b, d.Topic, false)
	return append(b, '}')
}

type rawFilterData struct {
	ConsumerGroup  string `json:"consumerGroup"`
	Topic          string `json:"topic"`
	Expression     string `json:"expression"`
	ExpressionType string `json:"expressionType"`
	BornTime       int64  `json:"bornTime"`
	DeadTime       int64  `json:"deadTime"`
	ClientVersion  int64  `json:"clientVersion"`
}

// Decode replaces the table with a persisted consumerFilter.json (ours or
// Java's). Filters that were alive are loaded as dead since 30 s ago: the
// groups' heartbeats revive them. An expression that no longer compiles is
// kept without a compiled form (matching everything, as Java does).
func (m *ConsumerFilterManager) Decode(data []byte) error {
	norm, err := body.Normalize(data)
	if err != nil {
		return err
	}
	var raw struct {
		FilterDataByTopic map[string]*struct {
			GroupFilterData map[string]*rawFilterData `json:"groupFilterData"`
		} `json:"filterDataByTopic"`
	}
	if err := jsoniter.ConfigCompatibleWithStandardLibrary.Unmarshal(norm, &raw); err != nil {
		return err
	}
	if raw.FilterDataByTopic == nil {
		return errNoData
	}
	nowMs := m.now().UnixMilli()
	loaded := map[string]map[string]*ConsumerFilterData{}
	for topic, byGroup := range raw.FilterDataByTopic {
		if byGroup == nil {
			continue
		}
		groups := map[string]*ConsumerFilterData{}
		for group, r := range byGroup.GroupFilterData {
			if r == nil {
				continue
			}
			groups[group] = m.loadOne(r, nowMs)
		}
		loaded[topic] = groups
	}
	m.mu.Lock()
	m.byTopic = loaded
	m.mu.Unlock()
	return nil
}

func (m *ConsumerFilterManager) loadOne(r *rawFilterData, nowMs int64) *ConsumerFilterData {
	d := &ConsumerFilterData{ConsumerGroup: r.ConsumerGroup, Topic: r.Topic, Expression: r.Expression,
		ExpressionType: r.ExpressionType, BornTime: r.BornTime, DeadTime: r.DeadTime, ClientVersion: r.ClientVersion}
	compiled, err := ifilter.Compile(r.ExpressionType, r.Expression)
	if err != nil {
		m.lg.Error("load filter data error", zap.String("group", r.ConsumerGroup), zap.String("topic", r.Topic), zap.Error(err))
	} else {
		d.Compiled = compiled
	}
	if d.DeadTime == 0 {
		d.DeadTime = max(nowMs-deadOnLoad.Milliseconds(), d.BornTime)
	}
	return d
}
