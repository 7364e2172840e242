// Package outapi is the broker's client side toward name servers and its
// master, mirroring Apache RocketMQ 4.9.8's BrokerOuterAPI
// (broker/out/BrokerOuterAPI.java).
//
// Name-server calls fan out to every address in parallel and wait at most the
// given timeout for all of them (Java's CountDownLatch):
//
//	REGISTER_BROKER (103)   header RegisterBrokerRequestHeader{brokerAddr, brokerId, brokerName,
//	                        clusterName, haServerAddr, compressed, bodyCrc32}
//	                        body   RegisterBrokerBody{topicConfigSerializeWrapper, filterServerList}
//	                               (zlib'ed binary form when compressed)
//	                        reply  SUCCESS + {masterAddr, haServerAddr} + optional KVTable body
//	UNREGISTER_BROKER (104) sequential, 3 s each, errors only logged
//	QUERY_DATA_VERSION (322) body = broker's DataVersion; "changed" when the
//	                        name server says so, answers with a different
//	                        version, or cannot be asked
//
// Slave -> master calls (used by broker/ha's SlaveSynchronize) are plain sync
// calls to the address given: GET_ALL_TOPIC_CONFIG, GET_ALL_CONSUMER_OFFSET,
// GET_ALL_DELAY_OFFSET, GET_ALL_SUBSCRIPTIONGROUP_CONFIG. Java sends them to
// the master's VIP channel (listen port - 2); callers pass whichever address
// they want.
//
// Invariants: an API owns one remoting.Client; calls never hold locks while
// waiting; Shutdown closes the connections.
package outapi
