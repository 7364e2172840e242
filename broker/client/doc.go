// Package client is the broker's bookkeeping of connected clients (Apache
// RocketMQ 4.9.8 broker/client): producer groups, consumer groups with their
// subscriptions, channel expiry, the consumer-ids-changed hook and the
// orderly-consumption queue locks.
//
//	ProducerManager   group -> channel -> ClientChannelInfo{clientId, language, version, lastUpdate}
//	                  clientId -> channel (request/reply, transaction checks)
//	ConsumerManager   group -> ConsumerGroupInfo{consumeType, messageModel, consumeFromWhere,
//	                                             topic -> SubscriptionData, channel -> ClientChannelInfo}
//	RebalanceLockManager  group -> MessageQueue -> {clientId, lastUpdate}   (60 s lease)
//
// Every HEART_BEAT registers (or refreshes) the sender's channel in each of its
// groups. The Go client never sends UNREGISTER_CLIENT, so a closed
// connection must unregister it from every group (DoChannelCloseEvent, wired
// to the transport's ChannelEventListener by Housekeeping) and channels
// silent for 120 s are dropped and closed (ScanNotActiveChannel, every 10 s).
//
// Consumer group changes are reported to a ConsumerIdsChangeListener:
// CHANGE (channel set or subscription set changed: the broker sends
// NOTIFY_CONSUMER_IDS_CHANGED to every channel of the group), REGISTER (every
// heartbeat: the consumer filter manager compiles SQL92 subscriptions) and
// UNREGISTER (last channel gone: filter data is marked dead).
//
// Invariants:
//   - listeners are called with no lock held (they write to the network);
//   - lock order: ConsumerManager.mu before ConsumerGroupInfo.mu; the
//     managers never call out while holding their own lock;
//   - channel lists are returned in registration order (Java iterates a hash
//     map keyed by channel identity, which no client can rely on).
//
// Usage:
//
//	cm := client.NewConsumerManager(listener, client.Options{Logger: lg})
//	changed := cm.RegisterConsumer(group, client.NewClientChannelInfo(ch, clientID, lang, ver, now),
//		cd.ConsumeType, cd.MessageModel, cd.ConsumeFromWhere, cd.SubscriptionDataSet, notifyEnabled)
package client
