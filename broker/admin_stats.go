package broker

// AdminBrokerProcessor (4.9.8) whole-broker views: GET_BROKER_CONSUME_STATS
// (317, fetchAllConsumeStatsInBroker, mqadmin brokerConsumeStats) and
// GET_ALL_PRODUCER_INFO (328, ProducerManager.getProducerTable).

import (
	"strconv"

	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

func (p *adminProcessor) addStatsHandlers(h map[int32]remoting.ProcessorFunc) {
	h[code.GetBrokerConsumeStats] = p.fetchAllConsumeStatsInBroker
	h[code.GetAllProducerInfo] = p.getAllProducerInfo
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
