package broker

// The properties string the broker stores for a sent message. Java parses
// the client's string into a java.util.HashMap (MessageDecoder.
// string2messageProperties), adds CLUSTER, drops WAIT and writes the map
// back (messageProperties2String) in HashMap iteration order;
// message.HashMapProperties reproduces that order so the stored records are
// byte-equal to Java's.

import (
	"strconv"

	"github.com/rocketmq-go/rmq/internal/message"
)

// storedProperties is what SendMessageProcessor stores: the client's
// properties with CLUSTER set to the broker's cluster and WAIT removed, in
// Java's HashMap order.
func storedProperties(props, cluster string) string {
	return message.EditHashMapProperties(props, message.PropertyCluster, cluster, message.PropertyWaitStoreMsgOK)
}

// batchProperties is the batch-level properties string of
// asyncSendBatchMessage: the header's properties plus CLUSTER, WAIT kept.
func batchProperties(props, cluster string) string {
	return message.EditHashMapProperties(props, message.PropertyCluster, cluster, "")
}

// halfProperties is a prepared message's properties after
// parseHalfMessageInner: the client's with CLUSTER (WAIT stays: Java puts it
// back into the map before the half message is rendered), REAL_TOPIC and
// REAL_QID.
func halfProperties(props, cluster, realTopic string, realQueueID int32) string {
	p := message.ParseHashMapProperties(props)
	p.Put(message.PropertyCluster, cluster)
	if w := p.Value(message.PropertyWaitStoreMsgOK); w != "" {
		p.Remove(message.PropertyWaitStoreMsgOK)
		p.Put(message.PropertyWaitStoreMsgOK, w)
	}
	p.Put(message.PropertyRealTopic, realTopic)
	p.Put(message.PropertyRealQueueID, strconv.Itoa(int(realQueueID)))
	return p.String()
}
