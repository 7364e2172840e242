package broker

// The properties string the broker stores for a sent message. Java parses
// the client's string into a java.util.HashMap (MessageDecoder.
// string2messageProperties), adds CLUSTER, drops WAIT and writes the map
// back (messageProperties2String) in HashMap iteration order. The same
// order is reproduced here so the stored records are byte-equal to Java's.

import (
	"slices"
	"strconv"
	"strings"

	"github.com/rocketmq-go/rmq/internal/message"
)

type propEntry struct{ k, v string }

// parseProperties is string2messageProperties keeping insertion order
// (a repeated name keeps its first position and takes the last value).
func parseProperties(s string) []propEntry {
	var out []propEntry
	for len(s) > 0 {
		seg := s
		if i := strings.IndexByte(s, message.PropertySeparator); i >= 0 {
			seg, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		i := strings.IndexByte(seg, message.NameValueSeparator)
		if len(seg) < 3 || i <= 0 || i >= len(seg)-1 {
			continue
		}
		k, v := seg[:i], seg[i+1:]
		if j := slices.IndexFunc(out, func(e propEntry) bool { return e.k == k }); j >= 0 {
			out[j].v = v
			continue
		}
		out = append(out, propEntry{k, v})
	}
	return out
}

// javaHashMapCapacity is the table size of a default java.util.HashMap
// (16, load factor 0.75) after n insertions.
func javaHashMapCapacity(n int) int {
	c := 16
	for n > c*3/4 {
		c <<= 1
	}
	return c
}

// javaBucket is HashMap's bucket index of a String key.
func javaBucket(k string, capacity int) uint32 {
	h := uint32(message.JavaStringHash(k))
	return (h ^ h>>16) & uint32(capacity-1)
}

// writeJavaOrder is messageProperties2String over a HashMap that saw peak
// insertions: entries by bucket, insertion order within a bucket.
func writeJavaOrder(entries []propEntry, peak int) string {
	c := javaHashMapCapacity(peak)
	slices.SortStableFunc(entries, func(a, b propEntry) int {
		return int(javaBucket(a.k, c)) - int(javaBucket(b.k, c))
	})
	var sb strings.Builder
	for i, e := range entries {
		if i > 0 {
			sb.WriteByte(message.PropertySeparator)
		}
		sb.WriteString(e.k)
		sb.WriteByte(message.NameValueSeparator)
		sb.WriteString(e.v)
	}
	return sb.String()
}

// javaProps is a java.util.HashMap<String,String> of message properties as
// far as its iteration order goes: entries in insertion order plus the
// largest size it reached (which fixes the table capacity).
type javaProps struct {
	entries []propEntry
	peak    int
}

// newJavaProps is string2messageProperties.
func newJavaProps(s string) *javaProps {
	e := parseProperties(s)
	return &javaProps{entries: e, peak: len(e)}
}

func (p *javaProps) index(k string) int {
	return slices.IndexFunc(p.entries, func(e propEntry) bool { return e.k == k })
}

// get returns the value of k ("" when absent).
func (p *javaProps) get(k string) string {
	if i := p.index(k); i >= 0 {
		return p.entries[i].v
	}
	return ""
}

// put is HashMap.put: a present key keeps its position.
func (p *javaProps) put(k, v string) {
	if i := p.index(k); i >= 0 {
		p.entries[i].v = v
		return
	}
	p.entries = append(p.entries, propEntry{k, v})
	p.peak = max(p.peak, len(p.entries))
}

// remove is HashMap.remove (the table does not shrink).
func (p *javaProps) remove(k string) {
	if i := p.index(k); i >= 0 {
		p.entries = slices.Delete(p.entries, i, i+1)
	}
}

// String is messageProperties2String.
func (p *javaProps) String() string { return writeJavaOrder(slices.Clone(p.entries), p.peak) }

// storedProperties is what SendMessageProcessor stores: the client's
// properties with CLUSTER set to the broker's cluster and WAIT removed, in
// Java's HashMap order.
func storedProperties(props, cluster string) string {
	p := newJavaProps(props)
	p.put(message.PropertyCluster, cluster)
	p.remove(message.PropertyWaitStoreMsgOK)
	return p.String()
}

// batchProperties is the batch-level properties string of
// asyncSendBatchMessage: the header's properties plus CLUSTER, WAIT kept.
func batchProperties(props, cluster string) string {
	p := newJavaProps(props)
	p.put(message.PropertyCluster, cluster)
	return p.String()
}

// halfProperties is a prepared message's properties after
// parseHalfMessageInner: the client's with CLUSTER (WAIT stays: Java puts it
// back into the map before the half message is rendered), REAL_TOPIC and
// REAL_QID.
func halfProperties(props, cluster, realTopic string, realQueueID int32) string {
	p := newJavaProps(props)
	p.put(message.PropertyCluster, cluster)
	if w := p.get(message.PropertyWaitStoreMsgOK); w != "" {
		p.remove(message.PropertyWaitStoreMsgOK)
		p.put(message.PropertyWaitStoreMsgOK, w)
	}
	p.put(message.PropertyRealTopic, realTopic)
	p.put(message.PropertyRealQueueID, strconv.Itoa(int(realQueueID)))
	return p.String()
}
