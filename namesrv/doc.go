// Package namesrv is a drop-in for Apache RocketMQ 4.9.8's name server
// (mqnamesrv): the route table brokers register into and clients read.
//
// Pieces (each file names the Java class it mirrors):
//
//	Namesrv ── remoting.Server ── DefaultRequestProcessor ──┬── RouteInfoManager (route table)
//	   │                                                     └── KVConfigManager (kvConfig.json)
//	   └── scanNotActiveBroker service (every scanNotActiveBrokerInterval ms)
//
// Route table (one RWMutex, no goroutines, clock passed in):
//
//	topicQueueTable   topic      → brokerName → QueueData
//	brokerAddrTable   brokerName → BrokerData{cluster, {brokerId → addr}}
//	clusterAddrTable  cluster    → {brokerName}
//	brokerLiveTable   brokerAddr → {lastUpdate, dataVersion, channel, haServerAddr}
//	filterServerTable brokerAddr → [filter server addr]
//
// Invariants:
//   - queue data comes only from masters (brokerId 0), and is rebuilt only on a
//     first registration or a changed data version;
//   - a topic loses a brokerName's queues only when no address of that
//     brokerName remains (unregister, expiry after brokerChannelExpiredTime,
//     or the broker's connection closing/idling);
//   - one broker address appears under one broker id;
//   - bodies are written byte-for-byte as the Java name server writes them
//     (remoting/body), including Java HashMap iteration order.
//
// Usage:
//
//	ns, err := namesrv.New(namesrv.NewNamesrvConfig(), namesrv.NewNettyServerConfig(), lg)
//	err = ns.Start()
//	defer ns.Shutdown(ctx)
package namesrv
