package body

import "slices"

// SubscriptionGroupConfig mirrors common/subscription/SubscriptionGroupConfig
// (4.9.8 fields). Use NewSubscriptionGroupConfig for Java's defaults.
type SubscriptionGroupConfig struct {
	GroupName                      string `json:"groupName"`
	ConsumeEnable                  bool   `json:"consumeEnable"`
	ConsumeFromMinEnable           bool   `json:"consumeFromMinEnable"`
	ConsumeBroadcastEnable         bool   `json:"consumeBroadcastEnable"`
	RetryQueueNums                 int32  `json:"retryQueueNums"`
	RetryMaxTimes                  int32  `json:"retryMaxTimes"`
	BrokerID                       int64  `json:"brokerId"`
	WhichBrokerWhenConsumeSlowly   int64  `json:"whichBrokerWhenConsumeSlowly"`
	NotifyConsumerIdsChangedEnable bool   `json:"notifyConsumerIdsChangedEnable"`
	// ConsumeMessageOrderly is 5.x's field (mqadmin updateSubGroup -o): the
	// group consumes FIFO, which gRPC consumers learn from the proxy. Written
	// only when true, so 4.9.8 groups keep their bytes.
	ConsumeMessageOrderly bool `json:"consumeMessageOrderly"`
}

// NewSubscriptionGroupConfig returns Java's field defaults for group.
func NewSubscriptionGroupConfig(group string) SubscriptionGroupConfig {
	return SubscriptionGroupConfig{
		GroupName:                      group,
		ConsumeEnable:                  true,
		ConsumeFromMinEnable:           true,
		ConsumeBroadcastEnable:         true,
		RetryQueueNums:                 1,
		RetryMaxTimes:                  16,
		BrokerID:                       0,
		WhichBrokerWhenConsumeSlowly:   1,
		NotifyConsumerIdsChangedEnable: true,
	}
}

// UnmarshalJSON starts from Java's defaults so fields absent from the JSON
// keep them, as fastjson leaves a freshly constructed bean's fields. A body
// the strict decoder refuses is read again as fastjson would (numbers and
// booleans as strings, lenient.go) before the first error is returned.
func (s *SubscriptionGroupConfig) UnmarshalJSON(data []byte) error {
	type plain SubscriptionGroupConfig
	p := plain(NewSubscriptionGroupConfig(""))
	if err := jsonAPI.Unmarshal(data, &p); err != nil {
		if s.unmarshalLenient(data) == nil {
			return nil
		}
		return err
	}
	*s = SubscriptionGroupConfig(p)
	return nil
}

// AppendJSON writes the fastjson bean form (fields sorted, null name omitted).
func (s *SubscriptionGroupConfig) AppendJSON(dst []byte) []byte {
	w := &beanWriter{b: dst}
	w.open()
	w.intField("brokerId", s.BrokerID)
	w.boolField("consumeBroadcastEnable", s.ConsumeBroadcastEnable)
	w.boolField("consumeEnable", s.ConsumeEnable)
	w.boolField("consumeFromMinEnable", s.ConsumeFromMinEnable)
	if s.ConsumeMessageOrderly {
		w.boolField("consumeMessageOrderly", true)
	}
	if s.GroupName != "" {
		w.strField("groupName", s.GroupName)
	}
	w.boolField("notifyConsumerIdsChangedEnable", s.NotifyConsumerIdsChangedEnable)
	w.intField("retryMaxTimes", int64(s.RetryMaxTimes))
	w.intField("retryQueueNums", int64(s.RetryQueueNums))
	w.intField("whichBrokerWhenConsumeSlowly", s.WhichBrokerWhenConsumeSlowly)
	w.close()
	return w.b
}

// subscriptionGroupTableCap is the table size of ConcurrentHashMap(1024), the
// SubscriptionGroupManager table.
const subscriptionGroupTableCap = 2048

// SubscriptionGroupWrapper mirrors protocol/body/SubscriptionGroupWrapper,
// which has the same JSON shape as SubscriptionGroupManager itself: the
// GET_ALL_SUBSCRIPTIONGROUP_CONFIG body and subscriptionGroup.json.
// Order, when set, is the key order to write; nil means Java hash order.
type SubscriptionGroupWrapper struct {
	SubscriptionGroupTable map[string]SubscriptionGroupConfig `json:"subscriptionGroupTable"`
	DataVersion            DataVersion                        `json:"dataVersion"`
	Order                  []string                           `json:"-"`
}

// Groups returns the group names in write order.
func (w *SubscriptionGroupWrapper) Groups() []string {
	if w.Order != nil {
		return w.Order
	}
	keys := keysOf(w.SubscriptionGroupTable)
	slices.Sort(keys)
	SortJavaHashOrder(keys, subscriptionGroupTableCap)
	return keys
}

// Encode writes the compact fastjson form.
func (w *SubscriptionGroupWrapper) Encode() []byte {
	dst := append([]byte(nil), `{"dataVersion":`...)
	dst = append(dst, w.DataVersion.Encode()...)
	dst = append(dst, `,"subscriptionGroupTable":{`...)
	for i, g := range w.Groups() {
		if i > 0 {
			dst = append(dst, ',')
		}
		c := w.SubscriptionGroupTable[g]
		dst = AppendKey(dst, g, false)
		dst = c.AppendJSON(dst)
	}
	return append(dst, "}}"...)
}

// Decode reads either the fastjson or the standard form.
func (w *SubscriptionGroupWrapper) Decode(data []byte) error {
	var raw struct {
		SubscriptionGroupTable map[string]SubscriptionGroupConfig `json:"subscriptionGroupTable"`
		DataVersion            DataVersion                        `json:"dataVersion"`
	}
	if err := decodeFastjson(data, &raw); err != nil {
		return err
	}
	w.SubscriptionGroupTable, w.DataVersion, w.Order = raw.SubscriptionGroupTable, raw.DataVersion, nil
	if w.SubscriptionGroupTable == nil {
		w.SubscriptionGroupTable = map[string]SubscriptionGroupConfig{}
	}
	return nil
}
