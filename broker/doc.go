// Package broker is a drop-in for Apache RocketMQ 4.9.8's broker
// (mqbroker): the Broker lifecycle (BrokerController), its configuration
// (BrokerConfig), name-server registration and the request processors.
//
// Wiring (each box names the Java class it mirrors):
//
//	          ┌─ server (listenPort)  ──┐   processors run on bounded pools (b.Pools.*);
//	client ───┤                         ├── a gnet event loop never blocks
//	          └─ fastServer (port-2) ───┘   (no PULL_MESSAGE / LITE_PULL_MESSAGE there)
//	                 │
//	   send.go (SendMessageProcessor) ── topic.Manager ── store.MessageStore ── broker/ha (HA hook)
//	   each processor file adds itself to processorFamilies from init():
//	     send.go, sendback.go, reply.go           SendMessageProcessor, ReplyMessageProcessor
//	     pull.go (+ broker/longpoll)              PullMessageProcessor, PullRequestHoldService
//	     consumer_manage.go, offset_query.go      ConsumerManageProcessor, offset lookups
//	     query.go                                 QueryMessageProcessor
//	     client_manage.go, lock.go, broker2client.go  ClientManageProcessor, locks, Broker2Client
//	     admin*.go                                AdminBrokerProcessor
//	     end_transaction.go (+ broker/transaction) EndTransactionProcessor, check-back service
//	     ha_wiring.go, slave_sync.go (+ broker/ha) HAService, SlaveSynchronize
//	                 │
//	   register.go ── outapi.API ── every name server (REGISTER_BROKER every 30 s,
//	                                on topic changes, UNREGISTER_BROKER on shutdown)
//
// Processor families: a processor file adds a func(*Broker) to
// processorFamilies in its init(); New calls each once after the managers
// and store exist. A family calls b.registerProcessor(code, p, pool,
// onFastPort) and may add services (b.addService), store-arrival listeners
// (b.OnArriving), consumer-group listeners (b.OnConsumerIdsChanged) and
// shutdown hooks (b.onShutdown); it may set b.HA (broker/ha) before Start.
//
// Pools (Java's executors, sizes from BrokerConfig): Send, Put, Pull, Reply,
// Query, Admin, Client, Heartbeat, ConsumerManage, EndTransaction. Requests
// on Send, Pull, Heartbeat and EndTransaction go through a timedExecutor
// (processor.go) so that BrokerFastFailure can answer SYSTEM_BUSY
// [TIMEOUT_CLEAN_QUEUE] to requests that waited longer than
// waitTimeMillsIn*Queue, and [PCBUSY_CLEAN_QUEUE] to queued sends while the
// OS page cache is busy; a send arriving then gets [REJECTREQUEST], one
// finding the queue full [OVERLOAD]. Query requests also queue in a
// timedExecutor, with no wait limit, only so that the runtime info can
// report how long the oldest has waited. The default processor answers
// REQUEST_CODE_NOT_SUPPORTED " request type N not supported".
//
// Send path (send.go, sendback.go, reply.go, properties.go): header decode
// (V1 full names / V2 short names), preSend + msgCheck (start time,
// order-topic broker permission, topic validation, not-sendable system
// topics, auto-creation from TBW102 or as a retry topic, queue id), retry →
// DLQ, transaction half messages, the stored properties in Java HashMap
// order with CLUSTER, then the store's PutMessageAsync; its completion
// answers through ctx.Respond (no worker waits for SYNC_FLUSH or a slave).
//
// Lifecycle (STYLE §4): New allocates (managers loaded, store opened and
// recovered); Start starts the store, binds both servers, starts HA,
// services and housekeeping and registers with the name servers; Shutdown
// unregisters, stops the servers (draining queued requests), stops the
// services and owned goroutines, persists topics / subscription groups /
// consumer offsets and closes the store.
//
// Ports: Java's fast port is listenPort-2. With listenPort 0 (tests) the
// fast server gets its own ephemeral port; Addr and FastAddr report both,
// and BrokerAddr (brokerIP1:<bound port>) is what gets registered.
//
// Invariants: every goroutine is started through goFunc and waited for in
// Shutdown; the live BrokerConfig is an immutable snapshot behind an atomic
// pointer; registrations are serialized by registerMu, which is never taken
// while a manager lock is held.
//
// Usage:
//
//	b, err := broker.New(cfg, storeCfg, broker.Options{Logger: lg})
//	err = b.Start()
//	defer b.Shutdown(ctx)
package broker
