package client

// Admin views of the tables: the bodies of GET_CONSUMER_CONNECTION_LIST and
// GET_PRODUCER_CONNECTION_LIST (AdminBrokerProcessor) and
// GET_CONSUMER_LIST_BY_GROUP (ConsumerManageProcessor).

import "github.com/rocketmq-go/rmq/remoting/body"

func connectionOf(info *ClientChannelInfo) body.Connection {
	return body.Connection{ClientID: info.ClientID, ClientAddr: info.Channel.RemoteAddr(),
		Language: info.Language.String(), Version: info.Version}
}

// ConsumerConnection is the group's GET_CONSUMER_CONNECTION_LIST body.
func (g *ConsumerGroupInfo) ConsumerConnection() *body.ConsumerConnection {
	c := &body.ConsumerConnection{SubscriptionTable: g.SubscriptionTable(),
		ConsumeType: g.ConsumeType(), MessageModel: g.MessageModel(), ConsumeFromWhere: g.ConsumeFromWhere()}
	for _, info := range g.ChannelInfos() {
		c.ConnectionSet = append(c.ConnectionSet, connectionOf(info))
	}
	return c
}

// ConsumerList is the group's GET_CONSUMER_LIST_BY_GROUP body.
func (g *ConsumerGroupInfo) ConsumerList() *body.GetConsumerListByGroupResponseBody {
	return &body.GetConsumerListByGroupResponseBody{ConsumerIDList: g.AllClientIDs()}
}

// ProducerConnection is group's GET_PRODUCER_CONNECTION_LIST body; nil when
// the group is unknown (the processor answers SYSTEM_ERROR "the producer
// group[...] not exist"). A group emptied by closed connections still
// exists, as in 4.9.8, and gets an empty connection set.
func (p *ProducerManager) ProducerConnection(group string) *body.ProducerConnection {
	p.mu.RLock()
	t, ok := p.groups[group]
	var infos []*ClientChannelInfo
	if ok {
		infos = t.list()
	}
	p.mu.RUnlock()
	if !ok {
		return nil
	}
	c := &body.ProducerConnection{ConnectionSet: []body.Connection{}}
	for _, info := range infos {
		c.ConnectionSet = append(c.ConnectionSet, connectionOf(info))
	}
	return c
}
