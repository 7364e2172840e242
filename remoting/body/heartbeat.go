package body

import (
	"fmt"
	"strconv"

	jsoniter "github.com/json-iterator/go"
)

// This file holds the HEART_BEAT body (HeartbeatData with its ProducerData,
// ConsumerData and SubscriptionData, common/protocol/heartbeat in 4.9.8).
// The broker only reads heartbeats, but it writes SubscriptionData back in
// GET_CONSUMER_CONNECTION_LIST answers, so SubscriptionData encodes
// byte-exact. Decoding accepts every client's shape, as fastjson does:
//
//	Java: "codeSet":[2598919,2598920], "subVersion":1795966620638   (ms)
//	Go:   "codeSet":["2598919","2598920"], "subVersion":1795966569048119794 (ns)
//	C++:  "consumeType":1, "messageModel":1, "consumeFromWhere":4 (ordinals),
//	      "subVersion":"1796136456649", no expressionType/tagsSet/codeSet/
//	      unitMode, only the data set it has, a newline after the body
//	Node: "subVersion":1796136118797, no expressionType (ali-ons)

// ConsumeType values (heartbeat ConsumeType enum).
const (
	ConsumeActively  = "CONSUME_ACTIVELY"  // pull and lite-pull consumers
	ConsumePassively = "CONSUME_PASSIVELY" // push consumers
)

// MessageModel values.
const (
	Clustering   = "CLUSTERING"
	Broadcasting = "BROADCASTING"
)

// ConsumeFromWhere values (4.9.8 enum, deprecated ones included).
const (
	ConsumeFromLastOffset                        = "CONSUME_FROM_LAST_OFFSET"
	ConsumeFromLastOffsetAndFromMinWhenBootFirst = "CONSUME_FROM_LAST_OFFSET_AND_FROM_MIN_WHEN_BOOT_FIRST"
	ConsumeFromMinOffset                         = "CONSUME_FROM_MIN_OFFSET"
	ConsumeFromMaxOffset                         = "CONSUME_FROM_MAX_OFFSET"
	ConsumeFromFirstOffset                       = "CONSUME_FROM_FIRST_OFFSET"
	ConsumeFromTimestamp                         = "CONSUME_FROM_TIMESTAMP"
)

// SubscriptionData mirrors heartbeat/SubscriptionData. TagsSet and CodeSet
// are Java HashSets: Encode writes them in HashSet iteration order.
// ExpressionType defaults to "TAG" when a body leaves it out, as the Java
// field initialiser does.
type SubscriptionData struct {
	ClassFilterMode bool
	Topic           string
	SubString       string
	TagsSet         []string
	CodeSet         []int32
	SubVersion      int64 // Java clients: epoch ms; Go client: epoch ns
	ExpressionType  string
}

// ProducerData mirrors heartbeat/ProducerData.
type ProducerData struct {
	GroupName string
}

// ConsumerData mirrors heartbeat/ConsumerData.
type ConsumerData struct {
	GroupName           string
	ConsumeType         string
	MessageModel        string
	ConsumeFromWhere    string
	SubscriptionDataSet []SubscriptionData
	UnitMode            bool
}

// HeartbeatData mirrors heartbeat/HeartbeatData. The 5.x heartbeat V2 fields
// are read when present and never written.
type HeartbeatData struct {
	ClientID             string
	ProducerDataSet      []ProducerData
	ConsumerDataSet      []ConsumerData
	HeartbeatFingerprint int32 // 5.x V2 only
	WithoutSub           bool  // 5.x V2 only (isWithoutSub)
}

// The raw types read a body the way fastjson does (lenient.go): any JSON
// type that converts, enum names or ordinals, absent fields as Java
// defaults, unknown fields ignored.
type rawSubscriptionData struct {
	ClassFilterMode lbool    `json:"classFilterMode"`
	Topic           lstr     `json:"topic"`
	SubString       lstr     `json:"subString"`
	TagsSet         []lstr   `json:"tagsSet"`
	CodeSet         []lint32 `json:"codeSet"`
	SubVersion      lint64   `json:"subVersion"`
	ExpressionType  *lstr    `json:"expressionType"`
}

type rawConsumerData struct {
	GroupName           lstr                        `json:"groupName"`
	ConsumeType         lenum[consumeTypeEnum]      `json:"consumeType"`
	MessageModel        lenum[messageModelEnum]     `json:"messageModel"`
	ConsumeFromWhere    lenum[consumeFromWhereEnum] `json:"consumeFromWhere"`
	SubscriptionDataSet []rawSubscriptionData       `json:"subscriptionDataSet"`
	UnitMode            lbool                       `json:"unitMode"`
}

type rawHeartbeatData struct {
	ClientID             lstr              `json:"clientID"`
	ProducerDataSet      []rawProducerData `json:"producerDataSet"`
	ConsumerDataSet      []rawConsumerData `json:"consumerDataSet"`
	HeartbeatFingerprint lint32            `json:"heartbeatFingerprint"`
	WithoutSub           lbool             `json:"withoutSub"`
	IsWithoutSub         lbool             `json:"isWithoutSub"`
}

// rawProducerData is the JSON shape of ProducerData.
type rawProducerData struct {
	GroupName lstr `json:"groupName"`
}

// DecodeHeartbeatData reads a HEART_BEAT body from any client.
func DecodeHeartbeatData(data []byte) (*HeartbeatData, error) {
	var raw rawHeartbeatData
	if err := decodeFastjsonNumbers(data, &raw); err != nil {
		return nil, fmt.Errorf("body: heartbeat: %w", err)
	}
	h := &HeartbeatData{
		ClientID:             string(raw.ClientID),
		HeartbeatFingerprint: int32(raw.HeartbeatFingerprint),
		WithoutSub:           bool(raw.WithoutSub || raw.IsWithoutSub),
	}
	for _, p := range raw.ProducerDataSet {
		h.ProducerDataSet = append(h.ProducerDataSet, ProducerData{GroupName: string(p.GroupName)})
	}
	for _, c := range raw.ConsumerDataSet {
		cd := ConsumerData{GroupName: string(c.GroupName), ConsumeType: string(c.ConsumeType),
			MessageModel: string(c.MessageModel), ConsumeFromWhere: string(c.ConsumeFromWhere),
			UnitMode: bool(c.UnitMode)}
		for _, rs := range c.SubscriptionDataSet {
			cd.SubscriptionDataSet = append(cd.SubscriptionDataSet, rs.convert())
		}
		h.ConsumerDataSet = append(h.ConsumerDataSet, cd)
	}
	return h, nil
}

// DecodeSubscriptionData reads one SubscriptionData object.
func DecodeSubscriptionData(data []byte) (*SubscriptionData, error) {
	var raw rawSubscriptionData
	if err := decodeFastjsonNumbers(data, &raw); err != nil {
		return nil, fmt.Errorf("body: subscription data: %w", err)
	}
	sd := raw.convert()
	return &sd, nil
}

func (r *rawSubscriptionData) convert() SubscriptionData {
	sd := SubscriptionData{ClassFilterMode: bool(r.ClassFilterMode), Topic: string(r.Topic),
		SubString: string(r.SubString), TagsSet: strs(r.TagsSet), SubVersion: int64(r.SubVersion),
		ExpressionType: "TAG"}
	if r.ExpressionType != nil {
		sd.ExpressionType = string(*r.ExpressionType)
	}
	for _, c := range r.CodeSet {
		sd.CodeSet = append(sd.CodeSet, int32(c))
	}
	return sd
}

// numberAPI decodes untyped numbers as json.Number, so nanosecond
// subVersions keep every digit.
var numberAPI = jsoniter.Config{EscapeHTML: true, SortMapKeys: true, ValidateJsonRawMessage: true, UseNumber: true}.Froze()

// decodeFastjsonNumbers is decodeFastjson with exact integers in `any` fields.
func decodeFastjsonNumbers(data []byte, v any) error {
	norm, err := Normalize(data)
	if err != nil {
		return err
	}
	return numberAPI.Unmarshal(norm, v)
}

// Encode writes the body as the Java client's fastjson does (fields in
// alphabetical order, sets in the order held).
func (h *HeartbeatData) Encode() []byte {
	w := &beanWriter{}
	w.open()
	w.strField("clientID", h.ClientID)
	w.key("consumerDataSet")
	w.b = append(w.b, '[')
	for i := range h.ConsumerDataSet {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		h.ConsumerDataSet[i].appendJSON(w)
	}
	w.b = append(w.b, ']')
	w.key("producerDataSet")
	w.b = append(w.b, '[')
	for i, p := range h.ProducerDataSet {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.open()
		w.strField("groupName", p.GroupName)
		w.close()
	}
	w.b = append(w.b, ']')
	w.close()
	return w.b
}

func (c *ConsumerData) appendJSON(w *beanWriter) {
	w.open()
	w.strField("consumeFromWhere", c.ConsumeFromWhere)
	w.strField("consumeType", c.ConsumeType)
	w.strField("groupName", c.GroupName)
	w.strField("messageModel", c.MessageModel)
	w.key("subscriptionDataSet")
	w.b = append(w.b, '[')
	for i := range c.SubscriptionDataSet {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		c.SubscriptionDataSet[i].appendJSON(w, false)
	}
	w.b = append(w.b, ']')
	w.boolField("unitMode", c.UnitMode)
	w.close()
}

// Encode writes one SubscriptionData as fastjson does, its sets in Java
// HashSet order.
func (s *SubscriptionData) Encode() []byte {
	w := &beanWriter{}
	s.appendJSON(w, true)
	return w.b
}

// appendJSON writes the bean; javaOrder re-sorts the sets into the order a
// Java HashSet holding them iterates (what a Java broker echoes back).
func (s *SubscriptionData) appendJSON(w *beanWriter, javaOrder bool) {
	tags, codes := s.TagsSet, s.CodeSet
	if javaOrder {
		tags, codes = s.JavaOrderedSets()
	}
	w.open()
	w.boolField("classFilterMode", s.ClassFilterMode)
	w.key("codeSet")
	w.b = append(w.b, '[')
	for i, c := range codes {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = strconv.AppendInt(w.b, int64(c), 10)
	}
	w.b = append(w.b, ']')
	w.strField("expressionType", s.ExpressionType)
	w.strField("subString", s.SubString)
	w.intField("subVersion", s.SubVersion)
	w.key("tagsSet")
	w.b = AppendStringList(w.b, tags, false)
	w.strField("topic", s.Topic)
	w.close()
}

// JavaOrderedSets returns copies of TagsSet and CodeSet in the iteration
// order of java.util.HashSet (default capacity 16, grown as filled).
func (s *SubscriptionData) JavaOrderedSets() ([]string, []int32) {
	tags := append([]string(nil), s.TagsSet...)
	codes := append([]int32(nil), s.CodeSet...)
	JavaHashOrder(tags, JavaStringHash, JavaHashMapCapacity(len(tags), 16))
	JavaHashOrder(codes, func(c int32) int32 { return c }, JavaHashMapCapacity(len(codes), 16))
	return tags, codes
}
