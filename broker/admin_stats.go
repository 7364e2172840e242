package broker

// AdminBrokerProcessor (4.9.8) whole-broker views: GET_BROKER_CONSUME_STATS
// (317, fetchAllConsumeStatsInBroker, mqadmin brokerConsumeStats),
// GET_ALL_PRODUCER_INFO (328, ProducerManager.getProducerTable) and
// VIEW_BROKER_STATS_DATA (315, mqadmin statsAll); and the wiring of the
// BrokerStatsManager (broker/stats) with its sampling services and the
// BrokerStats morning counters of GET_BROKER_RUNTIME_INFO.

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/rocketmq-go/rmq/broker/stats"
	"github.com/rocketmq-go/rmq/internal/service"

	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

func init() { processorFamilies = append(processorFamilies, wireStats) }

// wireStats creates the BrokerStatsManager and the services that sample it
// (every 10 s, 10 min and 1 h, as StatsItemSet schedules them); the 10 s
// service also runs BrokerStats.record at local midnight
// (BrokerController's computeNextMorningTimeMillis schedule), so the
// morning counters move within 10 s of midnight. A fourth service writes
// the stats.log lines (StatsItemSet's printAtMinutes/Hour/Day and
// MomentStatsItemSet's 5-minute lines) when they fall due; it checks every
// second, so a line is at most a second later than Java's.
func wireStats(b *Broker) {
	sch := b.statsSchedule
	b.stats = stats.New(b.Config().BrokerClusterName, b.Config().EnableDetailStat)
	b.stats.Morning.Tick(time.Now(), nil) // arms the first midnight
	b.addService(service.New("brokerStatsSeconds", sch.Seconds, func(context.Context) {
		now := time.Now()
		b.stats.SampleSeconds(now)
		b.stats.Morning.Tick(now, b.store.StatsTotals)
	}))
	b.addService(service.New("brokerStatsMinutes", sch.Minutes, func(context.Context) {
		b.stats.SampleMinutes(time.Now())
	}))
	b.addService(service.New("brokerStatsHour", sch.Hour, func(context.Context) {
		b.stats.SampleHour(time.Now())
	}))
	clock := stats.NewLogClock(sch, time.Now())
	lg := b.lg.Named("stats") // stats.log, as Java's RocketmqStats logger
	b.addService(service.New("brokerStatsLog", sch.CheckEvery(), func(context.Context) {
		if now := time.Now(); !now.Before(clock.Next()) {
			clock.Print(b.stats, lg, now)
		}
	}))
	wireWaterMark(b)
}

// Stats is the broker's BrokerStatsManager.
func (b *Broker) Stats() *stats.Manager { return b.stats }

// statsRuntimeInfo sets the BrokerStats keys of GET_BROKER_RUNTIME_INFO:
// the put/get totals now and at the last two midnights.
func (b *Broker) statsRuntimeInfo(m map[string]string) {
	put, get := b.store.StatsTotals()
	putY, putT, getY, getT := b.stats.Morning.Values()
	f := func(v int64) string { return strconv.FormatInt(v, 10) }
	m["msgPutTotalYesterdayMorning"], m["msgPutTotalTodayMorning"], m["msgPutTotalTodayNow"] = f(putY), f(putT), f(put)
	m["msgGetTotalYesterdayMorning"], m["msgGetTotalTodayMorning"], m["msgGetTotalTodayNow"] = f(getY), f(getT), f(get)
}

func (p *adminProcessor) addStatsHandlers(h map[int32]remoting.ProcessorFunc) {
	h[code.GetBrokerConsumeStats] = p.fetchAllConsumeStatsInBroker
	h[code.GetAllProducerInfo] = p.getAllProducerInfo
	h[code.ViewBrokerStatsData] = p.viewBrokerStatsData
}

// viewBrokerStatsData answers BrokerStatsData with the minute, hour and day
// figures of one stats item; an unknown name or key is a SYSTEM_ERROR.
func (p *adminProcessor) viewBrokerStatsData(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.ViewBrokerStatsDataRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	it := p.b.stats.Lookup(h.StatsName, h.StatsKey)
	if it == nil {
		return nil, wireError(code.SystemError, fmt.Sprintf("The stats <%s> <%s> not exist", h.StatsName, h.StatsKey))
	}
	out := []byte(`{"statsDay":`)
	out = appendStatsItem(out, it.Day())
	out = append(out, `,"statsHour":`...)
	out = appendStatsItem(out, it.Hour())
	out = append(out, `,"statsMinute":`...)
	out = appendStatsItem(out, it.Minute())
	resp := success()
	resp.Body = append(out, '}')
	return resp, nil
}

// appendStatsItem is a BrokerStatsItem as fastjson writes it.
func appendStatsItem(out []byte, s stats.Snapshot) []byte {
	out = append(out, `{"avgpt":`...)
	out = body.AppendJavaDouble(out, s.Avgpt)
	out = append(out, `,"sum":`...)
	out = strconv.AppendInt(out, s.Sum, 10)
	out = append(out, `,"tps":`...)
	out = body.AppendJavaDouble(out, s.Tps)
	return append(out, '}')
}

// fetchAllConsumeStatsInBroker answers ConsumeStatsList: for every
// subscription group, the consume stats of each topic it has offsets for
// (only order topics when isOrder), with the summed lag.
func (p *adminProcessor) fetchAllConsumeStatsInBroker(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.GetConsumeStatsInBrokerHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	groups := p.b.subs.Wrapper().Groups()
	var totalDiff int64
	out := []byte(`{"brokerAddr":`)
	out = body.AppendString(out, p.b.BrokerAddr(), false)
	out = append(out, `,"consumeStatsList":[`...)
	for gi, group := range groups {
		if gi > 0 {
			out = append(out, ',')
		}
		out = append(out, '{')
		out = body.AppendString(out, group, false)
		out = append(out, ":["...)
		n := 0
		for _, t := range p.b.offsets.WhichTopicByConsumer(group) {
			tc := p.b.topics.SelectTopicConfig(t)
			if tc == nil || (h.IsOrder && !tc.Order) {
				continue
			}
			cs := body.ConsumeStats{OffsetTable: map[body.MessageQueue]body.OffsetWrapper{}}
			if !p.addConsumeStats(&cs, group, t, tc.WriteQueueNums) {
				continue
			}
			cs.ConsumeTps += p.b.stats.TpsGroupGetNums(group, t)
			totalDiff += cs.ComputeTotalDiff()
			if n > 0 {
				out = append(out, ',')
			}
			out = append(out, cs.Encode()...)
			n++
		}
		out = append(out, "]}"...)
	}
	out = append(out, `],"totalDiff":`...)
	out = strconv.AppendInt(out, totalDiff, 10)
	resp := success()
	resp.Body = append(out, '}')
	return resp, nil
}

// getAllProducerInfo answers ProducerTableInfo:
// {"data":{group:[{clientId,language,lastUpdateTimestamp,remoteIP,version}]}}.
func (p *adminProcessor) getAllProducerInfo(_ *remoting.Context, _ *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	table := p.b.producers.GroupChannels()
	groups := make([]string, 0, len(table))
	for g, infos := range table {
		if len(infos) > 0 { // Java only creates entries for groups with channels
			groups = append(groups, g)
		}
	}
	body.SortJavaHashOrder(groups)
	out := []byte(`{"data":{`)
	for gi, g := range groups {
		if gi > 0 {
			out = append(out, ',')
		}
		out = body.AppendString(out, g, false)
		out = append(out, ":["...)
		for i, info := range table[g] {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, `{"clientId":`...)
			out = body.AppendString(out, info.ClientID, false)
			out = append(out, `,"language":`...)
			out = body.AppendString(out, info.Language.String(), false)
			out = append(out, `,"lastUpdateTimestamp":`...)
			out = strconv.AppendInt(out, info.LastUpdateTimestamp(), 10)
			out = append(out, `,"remoteIP":`...)
			out = body.AppendString(out, "/"+info.Channel.RemoteAddr(), false)
			out = append(out, `,"version":`...)
			out = strconv.AppendInt(out, int64(info.Version), 10)
			out = append(out, '}')
		}
		out = append(out, ']')
	}
	resp := success()
	resp.Body = append(out, "}}"...)
	return resp, nil
}
