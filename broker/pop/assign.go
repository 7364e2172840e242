package pop

// Server-side rebalance of 5.x (QueryAssignmentProcessor and the
// allocation strategies it names) and the message request modes
// (MessageRequestModeManager, config/messageRequestMode.json).

import (
	"cmp"
	"encoding/json"
	"slices"
	"sync"
)

// Message request modes (MessageRequestMode).
const (
	ModePull = "PULL"
	ModePop  = "POP"
)

// Allocation strategy names (AllocateMessageQueueStrategy.getName).
const (
	StrategyAvg         = "AVG"
	StrategyAvgByCircle = "AVG_BY_CIRCLE"
)

// Queue is a MessageQueue; QueueID -1 means "every queue of the broker" in
// a POP assignment.
type Queue struct {
	BrokerName string `json:"brokerName"`
	QueueID    int32  `json:"queueId"`
	Topic      string `json:"topic"`
}

// compareQueue is MessageQueue.compareTo: topic, broker name, queue id.
func compareQueue(a, b Queue) int {
	return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.BrokerName, b.BrokerName), cmp.Compare(a.QueueID, b.QueueID))
}

// SortQueues sorts as Collections.sort(List<MessageQueue>).
func SortQueues(qs []Queue) { slices.SortFunc(qs, compareQueue) }

// Allocate runs strategy for client cid over the sorted mqAll and cidAll.
// ok is false for an unknown strategy.
func Allocate(strategy, cid string, mqAll []Queue, cidAll []string) (out []Queue, ok bool) {
	idx := slices.Index(cidAll, cid)
	switch strategy {
	case StrategyAvg:
		if idx < 0 || len(mqAll) == 0 {
			return nil, true
		}
		n, c := len(mqAll), len(cidAll)
		mod := n % c
		avg := n / c
		switch {
		case n <= c:
			avg = 1
		case mod > 0 && idx < mod:
			avg++
		}
		start := idx*avg + mod
		if mod > 0 && idx < mod {
			start = idx * avg
		}
		for i := range min(avg, n-start) {
			out = append(out, mqAll[(start+i)%n])
		}
		return out, true
	case StrategyAvgByCircle:
		if idx < 0 {
			return nil, true
		}
		for i := idx; i < len(mqAll); i += len(cidAll) {
			out = append(out, mqAll[i])
		}
		return out, true
	}
	return nil, false
}

// AllocateForPop is allocate4Pop: with popShareQueueNum <= 0 (or at least
// the other clients' count) every client gets every broker's queues as one
// queue id -1; otherwise its strategy share plus its followers' shares.
func AllocateForPop(strategy, cid string, mqAll []Queue, cidAll []string, popShareQueueNum int) ([]Queue, bool) {
	if popShareQueueNum <= 0 || popShareQueueNum >= len(cidAll)-1 {
		out := make([]Queue, 0, len(mqAll))
		for _, q := range mqAll {
			out = append(out, Queue{BrokerName: q.BrokerName, QueueID: -1, Topic: q.Topic})
		}
		return out, true
	}
	if len(cidAll) > len(mqAll) {
		idx := slices.Index(cidAll, cid)
		if idx < 0 || len(mqAll) == 0 {
			return nil, true
		}
		return []Queue{mqAll[idx%len(mqAll)]}, true
	}
	out, ok := Allocate(strategy, cid, mqAll, cidAll)
	if !ok {
		return nil, false
	}
	if idx := slices.Index(cidAll, cid); idx >= 0 {
		for range popShareQueueNum {
			idx = (idx + 1) % len(cidAll)
			more, _ := Allocate(strategy, cidAll[idx], mqAll, cidAll)
			out = append(out, more...)
		}
	}
	return out, true
}

// RequestMode is SetMessageRequestModeRequestBody (fastjson field order).
type RequestMode struct {
	ConsumerGroup    string `json:"consumerGroup"`
	Mode             string `json:"mode"`
	PopShareQueueNum int    `json:"popShareQueueNum"`
	Topic            string `json:"topic"`
}

// RequestModes is MessageRequestModeManager's table: topic → group → mode.
type RequestModes struct {
	mu    sync.Mutex
	table map[string]map[string]RequestMode // guarded by mu
}

// NewRequestModes returns an empty table.
func NewRequestModes() *RequestModes {
	return &RequestModes{table: make(map[string]map[string]RequestMode)}
}

// Get returns the mode set for topic and group.
func (m *RequestModes) Get(topic, group string) (RequestMode, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.table[topic][group]
	return r, ok
}

// Set records a mode.
func (m *RequestModes) Set(r RequestMode) {
	m.mu.Lock()
	defer m.mu.Unlock()
	g := m.table[r.Topic]
	if g == nil {
		g = make(map[string]RequestMode)
		m.table[r.Topic] = g
	}
	g[r.ConsumerGroup] = r
}

type requestModesFile struct {
	MessageRequestModeMap map[string]map[string]RequestMode `json:"messageRequestModeMap"`
}

// Encode is the messageRequestMode.json content.
func (m *RequestModes) Encode() []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, _ := json.Marshal(requestModesFile{MessageRequestModeMap: m.table}) // maps of strings and ints always encode
	return b
}

// Decode replaces the table with a messageRequestMode.json content.
func (m *RequestModes) Decode(data []byte) error {
	var f requestModesFile
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	if f.MessageRequestModeMap == nil {
		f.MessageRequestModeMap = make(map[string]map[string]RequestMode)
	}
	m.mu.Lock()
	m.table = f.MessageRequestModeMap
	m.mu.Unlock()
	return nil
}
