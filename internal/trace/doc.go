// Package trace reads and writes Apache RocketMQ 4.9.8's message trace
// records (client/trace: TraceDataEncoder, TraceView) and looks a message's
// trace up as `mqadmin queryMsgTraceById` does.
//
// Clients with tracing on (Java enableMsgTrace, Go primitive.TraceConfig)
// send, besides each message, trace messages to the trace topic
// (RMQ_SYS_TRACE_TOPIC unless configured, a broker creates it with one
// queue when traceTopicEnable is set, named by msgTraceTopicName). A trace
// message's body is a batch of records; its KEYS are the msgIds and keys
// of the messages it describes, space separated, so that the broker's index
// finds it by msgId:
//
//	body   = record FIELD_SPLITOR record FIELD_SPLITOR …          (\u0002)
//	record = field CONTENT_SPLITOR field …                        (\u0001)
//	Pub            type ts region group topic msgId tags keys storeHost
//	               bodyLength costTime msgType offsetMsgId success [clientHost]
//	SubBefore      type ts region group requestId msgId retryTimes keys
//	SubAfter       type requestId msgId costTime success keys [contextCode [ts group]]
//	EndTransaction type ts region group topic msgId tags keys storeHost
//	               msgType transactionId transactionState fromTransactionCheck
//
// Fields are split as Java's String.split splits them (trailing empty fields
// dropped). A record Java's decoder would throw on is left out and reported;
// decoding never panics (FuzzTraceDecode).
//
// Usage:
//
//	views, err := trace.QueryTrace(ctx, client, []string{"127.0.0.1:9876"}, "", msgID)
//	trace.Print(os.Stdout, views, time.Local)
package trace
