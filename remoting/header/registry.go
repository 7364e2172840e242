package header

import "github.com/rocketmq-go/rmq/remoting/code"

// requestHeaders maps a request code to a constructor of the header its
// request carries, as the Java processor that serves it decodes it. Codes
// whose request carries no custom header are absent.
var requestHeaders = map[int32]func() CommandCustomHeader{
	// name server
	code.PutKvConfig:            func() CommandCustomHeader { return new(PutKVConfigRequestHeader) },
	code.GetKvConfig:            func() CommandCustomHeader { return new(GetKVConfigRequestHeader) },
	code.DeleteKvConfig:         func() CommandCustomHeader { return new(DeleteKVConfigRequestHeader) },
	code.RegisterBroker:         func() CommandCustomHeader { return new(RegisterBrokerRequestHeader) },
	code.UnregisterBroker:       func() CommandCustomHeader { return new(UnRegisterBrokerRequestHeader) },
	code.GetRouteinfoByTopic:    func() CommandCustomHeader { return new(GetRouteInfoRequestHeader) },
	code.WipeWritePermOfBroker:  func() CommandCustomHeader { return new(WipeWritePermOfBrokerRequestHeader) },
	code.AddWritePermOfBroker:   func() CommandCustomHeader { return new(AddWritePermOfBrokerRequestHeader) },
	code.DeleteTopicInNamesrv:   func() CommandCustomHeader { return new(DeleteTopicFromNamesrvRequestHeader) },
	code.GetKvlistByNamespace:   func() CommandCustomHeader { return new(GetKVListByNamespaceRequestHeader) },
	code.GetTopicsByCluster:     func() CommandCustomHeader { return new(GetTopicsByClusterRequestHeader) },
	code.QueryDataVersion:       func() CommandCustomHeader { return new(QueryDataVersionRequestHeader) },
	code.BrokerHeartbeat:        func() CommandCustomHeader { return new(BrokerHeartbeatRequestHeader) },
	code.GetBrokerMemberGroup:   func() CommandCustomHeader { return new(GetBrokerMemberGroupRequestHeader) },
	code.RegisterTopicInNamesrv: func() CommandCustomHeader { return new(RegisterTopicRequestHeader) },

	// send / pull / offsets
	code.SendMessage:                func() CommandCustomHeader { return new(SendMessageRequestHeader) },
	code.SendReplyMessage:           func() CommandCustomHeader { return new(SendMessageRequestHeader) },
	code.SendMessageV2:              func() CommandCustomHeader { return new(SendMessageRequestHeaderV2) },
	code.SendBatchMessage:           func() CommandCustomHeader { return new(SendMessageRequestHeaderV2) },
	code.SendReplyMessageV2:         func() CommandCustomHeader { return new(SendMessageRequestHeaderV2) },
	code.PushReplyMessageToClient:   func() CommandCustomHeader { return new(ReplyMessageRequestHeader) },
	code.PullMessage:                func() CommandCustomHeader { return new(PullMessageRequestHeader) },
	code.PopMessage:                 func() CommandCustomHeader { return new(PopMessageRequestHeader) },
	code.AckMessage:                 func() CommandCustomHeader { return new(AckMessageRequestHeader) },
	code.ChangeMessageInvisibletime: func() CommandCustomHeader { return new(ChangeInvisibleTimeRequestHeader) },
	code.Notification:               func() CommandCustomHeader { return new(NotificationRequestHeader) },
	code.PeekMessage:                func() CommandCustomHeader { return new(PeekMessageRequestHeader) },
	code.PollingInfo:                func() CommandCustomHeader { return new(PollingInfoRequestHeader) },
	code.LitePullMessage:            func() CommandCustomHeader { return new(PullMessageRequestHeader) },
	code.QueryConsumerOffset:        func() CommandCustomHeader { return new(QueryConsumerOffsetRequestHeader) },
	code.UpdateConsumerOffset:       func() CommandCustomHeader { return new(UpdateConsumerOffsetRequestHeader) },
	code.GetMaxOffset:               func() CommandCustomHeader { return new(GetMaxOffsetRequestHeader) },
	code.GetMinOffset:               func() CommandCustomHeader { return new(GetMinOffsetRequestHeader) },
	code.GetEarliestMsgStoretime:    func() CommandCustomHeader { return new(GetEarliestMsgStoretimeRequestHeader) },
	code.SearchOffsetByTimestamp:    func() CommandCustomHeader { return new(SearchOffsetRequestHeader) },
	code.QueryConsumeQueue:          func() CommandCustomHeader { return new(QueryConsumeQueueRequestHeader) },
	code.QueryCorrectionOffset:      func() CommandCustomHeader { return new(QueryCorrectionOffsetHeader) },
	code.CloneGroupOffset:           func() CommandCustomHeader { return new(CloneGroupOffsetRequestHeader) },
	code.InvokeBrokerToResetOffset:  func() CommandCustomHeader { return new(ResetOffsetRequestHeader) },
	code.ResetConsumerClientOffset:  func() CommandCustomHeader { return new(ResetOffsetRequestHeader) },

	// clients, transactions, queries
	code.UnregisterClient:                func() CommandCustomHeader { return new(UnregisterClientRequestHeader) },
	code.GetConsumerListByGroup:          func() CommandCustomHeader { return new(GetConsumerListByGroupRequestHeader) },
	code.NotifyConsumerIdsChanged:        func() CommandCustomHeader { return new(NotifyConsumerIdsChangedRequestHeader) },
	code.ConsumerSendMsgBack:             func() CommandCustomHeader { return new(ConsumerSendMsgBackRequestHeader) },
	code.GetConsumerRunningInfo:          func() CommandCustomHeader { return new(GetConsumerRunningInfoRequestHeader) },
	code.ConsumeMessageDirectly:          func() CommandCustomHeader { return new(ConsumeMessageDirectlyResultRequestHeader) },
	code.InvokeBrokerToGetConsumerStatus: func() CommandCustomHeader { return new(GetConsumerStatusRequestHeader) },
	code.GetConsumerStatusFromClient:     func() CommandCustomHeader { return new(GetConsumerStatusRequestHeader) },
	code.EndTransaction:                  func() CommandCustomHeader { return new(EndTransactionRequestHeader) },
	code.CheckTransactionState:           func() CommandCustomHeader { return new(CheckTransactionStateRequestHeader) },
	code.ResumeCheckHalfMessage:          func() CommandCustomHeader { return new(ResumeCheckHalfMessageRequestHeader) },
	code.QueryMessage:                    func() CommandCustomHeader { return new(QueryMessageRequestHeader) },
	code.ViewMessageById:                 func() CommandCustomHeader { return new(ViewMessageRequestHeader) },

	// admin
	code.UpdateAndCreateTopic:         func() CommandCustomHeader { return new(CreateTopicRequestHeader) },
	code.DeleteTopicInBroker:          func() CommandCustomHeader { return new(DeleteTopicRequestHeader) },
	code.GetTopicStatsInfo:            func() CommandCustomHeader { return new(GetTopicStatsInfoRequestHeader) },
	code.GetTopicConfig:               func() CommandCustomHeader { return new(GetTopicConfigRequestHeader) },
	code.DeleteSubscriptiongroup:      func() CommandCustomHeader { return new(DeleteSubscriptionGroupRequestHeader) },
	code.GetConsumeStats:              func() CommandCustomHeader { return new(GetConsumeStatsRequestHeader) },
	code.GetConsumerConnectionList:    func() CommandCustomHeader { return new(GetConsumerConnectionListRequestHeader) },
	code.GetProducerConnectionList:    func() CommandCustomHeader { return new(GetProducerConnectionListRequestHeader) },
	code.GetAllProducerInfo:           func() CommandCustomHeader { return new(GetAllProducerInfoRequestHeader) },
	code.QueryTopicConsumeByWho:       func() CommandCustomHeader { return new(QueryTopicConsumeByWhoRequestHeader) },
	code.QueryTopicsByConsumer:        func() CommandCustomHeader { return new(QueryTopicsByConsumerRequestHeader) },
	code.QuerySubscriptionByConsumer:  func() CommandCustomHeader { return new(QuerySubscriptionByConsumerRequestHeader) },
	code.QueryConsumeTimeSpan:         func() CommandCustomHeader { return new(QueryConsumeTimeSpanRequestHeader) },
	code.ViewBrokerStatsData:          func() CommandCustomHeader { return new(ViewBrokerStatsDataRequestHeader) },
	code.GetBrokerConsumeStats:        func() CommandCustomHeader { return new(GetConsumeStatsInBrokerHeader) },
	code.UpdateAndCreateAclConfig:     func() CommandCustomHeader { return new(CreateAccessConfigRequestHeader) },
	code.DeleteAclConfig:              func() CommandCustomHeader { return new(DeleteAccessConfigRequestHeader) },
	code.UpdateGlobalWhiteAddrsConfig: func() CommandCustomHeader { return new(UpdateGlobalWhiteAddrsConfigRequestHeader) },
	code.GetSubscriptiongroupConfig:   func() CommandCustomHeader { return new(GetSubscriptionGroupConfigRequestHeader) },
	code.RegisterFilterServer:         func() CommandCustomHeader { return new(RegisterFilterServerRequestHeader) },
	code.RegisterMessageFilterClass:   func() CommandCustomHeader { return new(RegisterMessageFilterClassRequestHeader) },
}

// NewRequestHeader returns a fresh, zero header of the type the request
// with code reqCode carries, or nil when that request has no custom header
// (HEART_BEAT, GET_ALL_TOPIC_CONFIG, …) or is unknown. Send codes 310, 320
// and 325 give the V2 (one-letter) form; see DecodeSendMessageRequestHeader.
func NewRequestHeader(reqCode int32) CommandCustomHeader {
	if f, ok := requestHeaders[reqCode]; ok {
		return f()
	}
	return nil
}
