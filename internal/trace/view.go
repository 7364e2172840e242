package trace

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/rocketmq-go/rmq/internal/message"
)

// View is TraceView: one record about the queried message, as
// QueryMsgTraceById prints it.
type View struct {
	Type        Type
	MsgID       string
	Tags        string
	Keys        string
	Topic       string
	StoreHost   string
	OffsetMsgID string
	// ClientHost is the host the trace message was sent from (its born
	// host, without the port).
	ClientHost string
	GroupName  string
	TimeStamp  int64 // ms
	CostTime   int32 // ms
	Success    bool
	// Record is the decoded record itself.
	Record Context
}

// Status is "success" or "failed".
func (v *View) Status() string {
	if v.Success {
		return "success"
	}
	return "failed"
}

// ViewsOf is TraceView.decodeFromTraceTransData: the records of trace
// message m that are about msgID, in body order. The decode error, if any,
// names the records that were left out.
func ViewsOf(msgID string, m *message.MessageExt) ([]View, error) {
	ctxs, err := Decode(string(m.Body))
	var out []View
	for _, c := range ctxs {
		b := c.Beans[0]
		if b.MsgID != msgID {
			continue
		}
		out = append(out, View{Type: c.Type, MsgID: b.MsgID, Tags: b.Tags, Keys: b.Keys, Topic: b.Topic,
			StoreHost: b.StoreHost, OffsetMsgID: b.OffsetMsgID, ClientHost: bornHostString(m),
			GroupName: c.GroupName, TimeStamp: c.TimeStamp, CostTime: c.CostTime, Success: c.Success, Record: c})
	}
	return out, err
}

// bornHostString is MessageExt.getBornHostString: the address without port.
func bornHostString(m *message.MessageExt) string {
	if !m.BornHost.IsValid() {
		return ""
	}
	return m.BornHost.Addr().Unmap().String()
}

// Print writes views as mqadmin queryMsgTraceById prints them: a block per
// Pub record, then one block per consumer group of the SubAfter records,
// groups in the iteration order of Java's HashMap; SubBefore records are
// not printed. Times are in loc (Java's default time zone).
func Print(w io.Writer, views []View, loc *time.Location) {
	row := func(a ...any) { fmt.Fprintf(w, "%-10s %-20s %-20s %-20s %-10s %-10s\n", a...) }
	when := func(ms int64) string { return time.UnixMilli(ms).In(loc).Format("2006-01-02 15:04:05") }
	cost := func(v View) string { return strconv.FormatInt(int64(v.CostTime), 10) + "ms" }
	var groups []string
	byGroup := map[string][]View{}
	for _, v := range views {
		switch v.Type {
		case Pub:
			row("#Type", "#ProducerGroup", "#ClientHost", "#SendTime", "#CostTimes", "#Status")
			row("Pub", v.GroupName, v.ClientHost, when(v.TimeStamp), cost(v), v.Status())
			fmt.Fprint(w, "\n")
		case SubAfter:
			if _, ok := byGroup[v.GroupName]; !ok {
				groups = append(groups, v.GroupName)
			}
			byGroup[v.GroupName] = append(byGroup[v.GroupName], v)
		}
	}
	for _, g := range javaHashOrder(groups) {
		row("#Type", "#ConsumerGroup", "#ClientHost", "#ConsumerTime", "#CostTimes", "#Status")
		for _, v := range byGroup[g] {
			row("Sub", v.GroupName, v.ClientHost, when(v.TimeStamp), cost(v), v.Status())
		}
		fmt.Fprint(w, "\n")
	}
}

// javaHashOrder returns keys, inserted in this order into a
// java.util.HashMap(16), in that map's iteration order: by bucket of the
// final table, insertion order within a bucket.
func javaHashOrder(keys []string) []string {
	capacity := message.HashMapCapacity(len(keys), 16)
	out := slices.Clone(keys)
	slices.SortStableFunc(out, func(a, b string) int {
		return cmp.Compare(message.HashMapBucket(a, capacity), message.HashMapBucket(b, capacity))
	})
	return out
}
