package body

import (
	"slices"
	"strconv"

	jsoniter "github.com/json-iterator/go"
)

var jsonAPI = jsoniter.ConfigCompatibleWithStandardLibrary

// QueueData mirrors Java's QueueData: one broker's queues of a topic.
type QueueData struct {
	BrokerName     string `json:"brokerName"`
	ReadQueueNums  int32  `json:"readQueueNums"`
	WriteQueueNums int32  `json:"writeQueueNums"`
	Perm           int32  `json:"perm"`
	TopicSysFlag   int32  `json:"topicSysFlag"`
}

// BrokerData mirrors Java's BrokerData: the addresses of one broker group by
// broker id (0 = master).
type BrokerData struct {
	Cluster     string           `json:"cluster"`
	BrokerName  string           `json:"brokerName"`
	BrokerAddrs map[int64]string `json:"brokerAddrs"`
}

// Clone returns a deep copy.
func (b *BrokerData) Clone() BrokerData {
	c := *b
	c.BrokerAddrs = make(map[int64]string, len(b.BrokerAddrs))
	for k, v := range b.BrokerAddrs {
		c.BrokerAddrs[k] = v
	}
	return c
}

// TopicRouteData mirrors Java's TopicRouteData (4.9.8 fields). Slices are
// written in their order; the name server fills them in Java's order.
type TopicRouteData struct {
	OrderTopicConf    string              `json:"orderTopicConf,omitempty"`
	QueueDatas        []QueueData         `json:"queueDatas"`
	BrokerDatas       []BrokerData        `json:"brokerDatas"`
	FilterServerTable map[string][]string `json:"filterServerTable"`
}

// Encode writes the route as the 4.9.8 name server does. standard selects
// the form sent to requests with version >= V4_9_4 or acceptStandardJsonOnly
// (quoted and sorted map keys, BrowserCompatible escaping); otherwise the
// legacy fastjson form with bare integer keys.
func (r *TopicRouteData) Encode(standard bool) []byte {
	dst := make([]byte, 0, 256)
	dst = append(dst, `{"brokerDatas":[`...)
	for i := range r.BrokerDatas {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = r.BrokerDatas[i].appendJSON(dst, standard)
	}
	dst = append(dst, `],"filterServerTable":`...)
	dst = appendFilterServerTable(dst, r.FilterServerTable, standard)
	if r.OrderTopicConf != "" {
		dst = append(dst, `,"orderTopicConf":`...)
		dst = AppendString(dst, r.OrderTopicConf, standard)
	}
	dst = append(dst, `,"queueDatas":[`...)
	for i := range r.QueueDatas {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = r.QueueDatas[i].appendJSON(dst, standard)
	}
	return append(dst, "]}"...)
}

func appendFilterServerTable(dst []byte, t map[string][]string, standard bool) []byte {
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	if standard {
		slices.Sort(keys)
	} else {
		SortJavaHashOrder(keys, JavaHashMapCapacity(len(keys), 16))
	}
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendKey(dst, k, standard)
		dst = AppendStringList(dst, t[k], standard)
	}
	return append(dst, '}')
}

func (q *QueueData) appendJSON(dst []byte, standard bool) []byte {
	dst = append(dst, `{"brokerName":`...)
	dst = AppendString(dst, q.BrokerName, standard)
	dst = append(dst, `,"perm":`...)
	dst = strconv.AppendInt(dst, int64(q.Perm), 10)
	dst = append(dst, `,"readQueueNums":`...)
	dst = strconv.AppendInt(dst, int64(q.ReadQueueNums), 10)
	dst = append(dst, `,"topicSysFlag":`...)
	dst = strconv.AppendInt(dst, int64(q.TopicSysFlag), 10)
	dst = append(dst, `,"writeQueueNums":`...)
	dst = strconv.AppendInt(dst, int64(q.WriteQueueNums), 10)
	return append(dst, '}')
}

// appendJSON writes a BrokerData; standard quotes the id keys. Both forms list
// ids ascending (TreeMap order for MapSortField; small-Long HashMap order).
func (b *BrokerData) appendJSON(dst []byte, standard bool) []byte {
	dst = append(dst, `{"brokerAddrs":{`...)
	ids := make([]int64, 0, len(b.BrokerAddrs))
	for id := range b.BrokerAddrs {
		ids = append(ids, id)
	}
	if standard {
		slices.Sort(ids)
	} else {
		SortJavaLongKeys(ids, JavaHashMapCapacity(len(ids), 16))
	}
	for i, id := range ids {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendIntKey(dst, id, standard)
		dst = AppendString(dst, b.BrokerAddrs[id], standard)
	}
	dst = append(dst, `},"brokerName":`...)
	dst = AppendString(dst, b.BrokerName, standard)
	dst = append(dst, `,"cluster":`...)
	dst = AppendString(dst, b.Cluster, standard)
	return append(dst, '}')
}

// DecodeTopicRouteData reads either form (and 5.x extras, which are ignored).
func DecodeTopicRouteData(data []byte) (*TopicRouteData, error) {
	var r TopicRouteData
	if err := decodeFastjson(data, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// decodeFastjson normalizes fastjson text and unmarshals it into v.
func decodeFastjson(data []byte, v any) error {
	norm, err := Normalize(data)
	if err != nil {
		return err
	}
	return jsonAPI.Unmarshal(norm, v)
}

// EncodeBrokerMemberGroupBody writes 5.x GetBrokerMemberGroupResponseBody:
// {"brokerMemberGroup":{"brokerAddrs":{0:"…"},"brokerName":"…","cluster":"…"}}.
func EncodeBrokerMemberGroupBody(g *BrokerData) []byte {
	dst := append(make([]byte, 0, 128), `{"brokerMemberGroup":`...)
	dst = g.appendJSON(dst, false)
	return append(dst, '}')
}
