package body

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unsafe"

	jsoniter "github.com/json-iterator/go"
)

// Lenient scalar types for the bodies clients write. Apache reads them with
// fastjson, which converts between JSON types where the Java field type asks
// for it; clients other than the Java one rely on that:
//
//   - a String field takes a string, or the text of a number or boolean;
//   - an int/long field takes a number, a string holding one ("12",
//     "1,024", "3.00"), a boolean (1/0), and "" or null as null. A number
//     with a non-zero fraction is refused: fastjson would cut it off, but
//     no client writes one and a fraction in a count or offset is a bug
//     worth reporting;
//   - a boolean field takes true/false, the strings "true"/"false" (any
//     case), "1"/"0", "Y"/"y"/"T", "F"/"f"/"N", and a number (true when its
//     integer part is 1, as BigDecimal.intValue() == 1);
//   - an enum field takes its name (ASCII case ignored; an unknown name is
//     null) or its ordinal, which the C++ client writes (an ordinal out of
//     range fails the body, as in fastjson).
//
// Nulls leave the Go zero value, which stands for Java's null or a
// primitive's default. json-iterator reads the types through decoders
// registered for them in init (no copy of the value, so a lenient field
// costs about what a plain one does); UnmarshalJSON serves encoding/json.

// errLenient wraps every conversion failure.
var errLenient = errors.New("body: value does not convert")

// lstr is a Java String field.
type lstr string

// lint32 is a Java int/Integer field.
type lint32 int32

// lint64 is a Java long/Long field.
type lint64 int64

// lbool is a Java boolean/Boolean field.
type lbool bool

// enumNames lists a Java enum's constants in ordinal order.
type enumNames interface{ names() []string }

// lenum is a Java enum field holding the constant's name; N names the enum.
type lenum[N enumNames] string

// jsonKind is the JSON type of one value.
type jsonKind uint8

const (
	kindString jsonKind = iota
	kindNumber
	kindBool
	kindNull
	kindOther // object or array
)

// The conversions, from a value's kind and text (a string unquoted, any
// other value as written).

func toStr(k jsonKind, s string) string {
	if k == kindNull {
		return ""
	}
	// Numbers, booleans, and objects or arrays: fastjson's toString of the
	// parsed value, which for objects and arrays is their compact JSON.
	return s
}

func toInt(k jsonKind, s string, bits int) (int64, error) {
	switch k {
	case kindString:
		return parseJavaIntText(s, bits)
	case kindNumber:
		if n, err := strconv.ParseInt(s, 10, bits); err == nil {
			return n, nil
		}
		return integralFloat(s, bits)
	case kindBool:
		if s == "true" {
			return 1, nil
		}
		return 0, nil
	case kindNull:
		return 0, nil
	}
	return 0, fmt.Errorf("%w: integer %s", errLenient, s)
}

func toBool(k jsonKind, s string) (bool, error) {
	switch k {
	case kindNumber:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return false, fmt.Errorf("%w: boolean %s", errLenient, s)
		}
		return math.Trunc(f) == 1, nil // BigDecimal.intValue() == 1: 1.5 is true
	case kindNull:
		return false, nil
	case kindOther:
		return false, fmt.Errorf("%w: boolean %s", errLenient, s)
	}
	switch {
	case s == "" || s == "null" || s == "NULL":
		return false, nil
	case strings.EqualFold(s, "true") || s == "1" || strings.EqualFold(s, "y") || s == "T":
		return true, nil
	case strings.EqualFold(s, "false") || s == "0" || strings.EqualFold(s, "f") || s == "N":
		return false, nil
	}
	return false, fmt.Errorf("%w: boolean %q", errLenient, s)
}

func toEnum(names []string, k jsonKind, s string) (string, error) {
	switch k {
	case kindString:
		return enumByName(names, s), nil
	case kindNull:
		return "", nil
	case kindNumber:
		i, err := strconv.ParseInt(s, 10, 32)
		if err != nil || i < 0 || int(i) >= len(names) {
			return "", fmt.Errorf("%w: enum %s has no ordinal %s", errLenient, names[0], s)
		}
		return names[i], nil
	}
	return "", fmt.Errorf("%w: enum value %s", errLenient, s)
}

// parseJavaIntText is fastjson's castToInt/castToLong of a string: empty and
// "null" are null, grouping commas are dropped, and so is a fraction of
// zeros ("3.00").
func parseJavaIntText(s string, bits int) (int64, error) {
	if s == "" || s == "null" || s == "NULL" {
		return 0, nil
	}
	s = strings.ReplaceAll(s, ",", "")
	if i := strings.LastIndexByte(s, '.'); i >= 0 && strings.Trim(s[i+1:], "0") == "" {
		s = s[:i]
	}
	n, err := strconv.ParseInt(s, 10, bits)
	if err != nil {
		return 0, fmt.Errorf("%w: integer %q", errLenient, s)
	}
	return n, nil
}

// integralFloat reads a JSON number written with a fraction or exponent
// whose value is a whole number (1.0, 1e3).
func integralFloat(s string, bits int) (int64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || f != math.Trunc(f) {
		return 0, fmt.Errorf("%w: integer %s", errLenient, s)
	}
	limit := math.Ldexp(1, bits-1)
	if f >= limit || f < -limit {
		return 0, fmt.Errorf("%w: integer %s out of range", errLenient, s)
	}
	return int64(f), nil
}

// splitJSON classifies one normalized JSON value held in b.
func splitJSON(b []byte) (jsonKind, string, error) {
	switch {
	case len(b) == 0:
		return 0, "", fmt.Errorf("%w: empty value", errLenient)
	case b[0] == '"':
		s, err := jsonString(b)
		return kindString, s, err
	case b[0] == '-' || (b[0] >= '0' && b[0] <= '9'):
		return kindNumber, string(b), nil
	case string(b) == "true" || string(b) == "false":
		return kindBool, string(b), nil
	case string(b) == "null":
		return kindNull, "", nil
	}
	return kindOther, string(b), nil
}

// jsonString unquotes one normalized JSON string; strings without escapes
// (nearly all) are sliced without a decoder.
func jsonString(b []byte) (string, error) {
	if len(b) < 2 || b[len(b)-1] != '"' {
		return "", fmt.Errorf("%w: bad string %s", errLenient, b)
	}
	if bytes.IndexByte(b, '\\') < 0 {
		return string(b[1 : len(b)-1]), nil
	}
	var s string
	if err := jsonAPI.Unmarshal(b, &s); err != nil {
		return "", fmt.Errorf("%w: %w", errLenient, err)
	}
	return s, nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (s *lstr) UnmarshalJSON(b []byte) error {
	k, v, err := splitJSON(b)
	*s = lstr(toStr(k, v))
	return err
}

// UnmarshalJSON implements json.Unmarshaler.
func (n *lint32) UnmarshalJSON(b []byte) error {
	k, s, err := splitJSON(b)
	if err != nil {
		return err
	}
	v, err := toInt(k, s, 32)
	*n = lint32(v)
	return err
}

// UnmarshalJSON implements json.Unmarshaler.
func (n *lint64) UnmarshalJSON(b []byte) error {
	k, s, err := splitJSON(b)
	if err != nil {
		return err
	}
	v, err := toInt(k, s, 64)
	*n = lint64(v)
	return err
}

// UnmarshalJSON implements json.Unmarshaler.
func (v *lbool) UnmarshalJSON(b []byte) error {
	k, s, err := splitJSON(b)
	if err != nil {
		return err
	}
	x, err := toBool(k, s)
	*v = lbool(x)
	return err
}

// UnmarshalJSON implements json.Unmarshaler.
func (e *lenum[N]) UnmarshalJSON(b []byte) error {
	var zero N
	k, s, err := splitJSON(b)
	if err != nil {
		return err
	}
	v, err := toEnum(zero.names(), k, s)
	*e = lenum[N](v)
	return err
}

// readIter reads the next value of iter as (kind, text).
func readIter(iter *jsoniter.Iterator) (jsonKind, string) {
	switch iter.WhatIsNext() {
	case jsoniter.StringValue:
		return kindString, iter.ReadString()
	case jsoniter.NumberValue:
		return kindNumber, string(iter.ReadNumber())
	case jsoniter.BoolValue:
		if iter.ReadBool() {
			return kindBool, "true"
		}
		return kindBool, "false"
	case jsoniter.NilValue:
		iter.ReadNil()
		return kindNull, ""
	}
	return kindOther, string(iter.SkipAndReturnBytes())
}

// registerLenient makes json-iterator read values of T's type with conv.
func registerLenient[T any](conv func(k jsonKind, s string) (T, error)) {
	var zero T
	jsoniter.RegisterTypeDecoderFunc(reflect.TypeOf(zero).String(), func(ptr unsafe.Pointer, iter *jsoniter.Iterator) {
		k, s := readIter(iter)
		v, err := conv(k, s)
		if err != nil {
			iter.ReportError("body", err.Error())
			return
		}
		*(*T)(ptr) = v
	})
}

func init() {
	registerLenient(func(k jsonKind, s string) (lstr, error) { return lstr(toStr(k, s)), nil })
	registerLenient(func(k jsonKind, s string) (lint32, error) { n, err := toInt(k, s, 32); return lint32(n), err })
	registerLenient(func(k jsonKind, s string) (lint64, error) { n, err := toInt(k, s, 64); return lint64(n), err })
	registerLenient(func(k jsonKind, s string) (lbool, error) { b, err := toBool(k, s); return lbool(b), err })
	registerLenientEnum[consumeTypeEnum]()
	registerLenientEnum[messageModelEnum]()
	registerLenientEnum[consumeFromWhereEnum]()
	registerLenientEnum[topicFilterTypeEnum]()
}

func registerLenientEnum[N enumNames]() {
	var zero N
	names := zero.names()
	registerLenient(func(k jsonKind, s string) (lenum[N], error) { v, err := toEnum(names, k, s); return lenum[N](v), err })
}

// enumByName finds name among names ignoring ASCII case; "" when absent
// (fastjson answers null for an unknown name).
func enumByName(names []string, name string) string {
	for _, n := range names {
		if n == name {
			return n
		}
	}
	for _, n := range names {
		if asciiEqualFold(n, name) {
			return n
		}
	}
	return ""
}

func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// The heartbeat enums, constants in Java ordinal order (4.9.8).
type (
	consumeTypeEnum      struct{}
	messageModelEnum     struct{}
	consumeFromWhereEnum struct{}
)

var (
	consumeTypeNames      = []string{ConsumeActively, ConsumePassively}
	messageModelNames     = []string{Broadcasting, Clustering}
	consumeFromWhereNames = []string{ConsumeFromLastOffset, ConsumeFromLastOffsetAndFromMinWhenBootFirst,
		ConsumeFromMinOffset, ConsumeFromMaxOffset, ConsumeFromFirstOffset, ConsumeFromTimestamp}
)

func (consumeTypeEnum) names() []string      { return consumeTypeNames }
func (messageModelEnum) names() []string     { return messageModelNames }
func (consumeFromWhereEnum) names() []string { return consumeFromWhereNames }

// strs converts a lenient string list.
func strs(in []lstr) []string {
	if in == nil {
		return nil
	}
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = string(s)
	}
	return out
}

// Bodies the servers read from other servers or admin tools are decoded
// strictly first, so canonical fastjson (every Java broker's and ours)
// costs nothing extra; only when that fails are they read again with the
// lenient types, which accept what fastjson accepts.

type topicFilterTypeEnum struct{}

var topicFilterTypeNames = []string{"SINGLE_TAG", "MULTI_TAG"}

func (topicFilterTypeEnum) names() []string { return topicFilterTypeNames }

// rawTopicConfig is TopicConfig read leniently (absent fields zero, as the
// strict decoder leaves them).
type rawTopicConfig struct {
	TopicName       lstr                       `json:"topicName"`
	ReadQueueNums   lint32                     `json:"readQueueNums"`
	WriteQueueNums  lint32                     `json:"writeQueueNums"`
	Perm            lint32                     `json:"perm"`
	TopicFilterType lenum[topicFilterTypeEnum] `json:"topicFilterType"`
	TopicSysFlag    lint32                     `json:"topicSysFlag"`
	Order           lbool                      `json:"order"`
}

// decodeRegisterBrokerBodyLenient reads a JSON REGISTER_BROKER body the
// strict decoder refused.
func decodeRegisterBrokerBodyLenient(data []byte) (*RegisterBrokerBody, error) {
	var raw struct {
		TopicConfigSerializeWrapper struct {
			TopicConfigTable map[string]rawTopicConfig `json:"topicConfigTable"`
			DataVersion      DataVersion               `json:"dataVersion"`
		} `json:"topicConfigSerializeWrapper"`
		FilterServerList []lstr `json:"filterServerList"`
	}
	if err := decodeFastjsonNumbers(data, &raw); err != nil {
		return nil, err
	}
	r := &RegisterBrokerBody{FilterServerList: strs(raw.FilterServerList)}
	w := &r.TopicConfigSerializeWrapper
	w.DataVersion = raw.TopicConfigSerializeWrapper.DataVersion
	if t := raw.TopicConfigSerializeWrapper.TopicConfigTable; t != nil {
		w.TopicConfigTable = make(map[string]TopicConfig, len(t))
		for name, tc := range t {
			w.TopicConfigTable[name] = TopicConfig{TopicName: string(tc.TopicName), ReadQueueNums: int32(tc.ReadQueueNums),
				WriteQueueNums: int32(tc.WriteQueueNums), Perm: int32(tc.Perm), TopicFilterType: string(tc.TopicFilterType),
				TopicSysFlag: int32(tc.TopicSysFlag), Order: bool(tc.Order)}
		}
	}
	return r, nil
}

// UnmarshalJSON reads a DataVersion as fastjson does (numbers may be
// strings). It is one small object per body, so it is always lenient.
func (d *DataVersion) UnmarshalJSON(b []byte) error {
	var raw struct {
		Timestamp    lint64 `json:"timestamp"`
		Counter      lint64 `json:"counter"`
		StateVersion lint64 `json:"stateVersion"`
	}
	if err := jsonAPI.Unmarshal(b, &raw); err != nil {
		return err
	}
	*d = DataVersion{Timestamp: int64(raw.Timestamp), Counter: int64(raw.Counter), StateVersion: int64(raw.StateVersion)}
	return nil
}

// unmarshalLenient reads a SubscriptionGroupConfig the strict decoder
// refused, absent fields keeping Java's defaults.
func (s *SubscriptionGroupConfig) unmarshalLenient(data []byte) error {
	def := NewSubscriptionGroupConfig("")
	raw := struct {
		GroupName                      lstr   `json:"groupName"`
		ConsumeEnable                  lbool  `json:"consumeEnable"`
		ConsumeFromMinEnable           lbool  `json:"consumeFromMinEnable"`
		ConsumeBroadcastEnable         lbool  `json:"consumeBroadcastEnable"`
		RetryQueueNums                 lint32 `json:"retryQueueNums"`
		RetryMaxTimes                  lint32 `json:"retryMaxTimes"`
		BrokerID                       lint64 `json:"brokerId"`
		WhichBrokerWhenConsumeSlowly   lint64 `json:"whichBrokerWhenConsumeSlowly"`
		NotifyConsumerIdsChangedEnable lbool  `json:"notifyConsumerIdsChangedEnable"`
	}{
		ConsumeEnable: lbool(def.ConsumeEnable), ConsumeFromMinEnable: lbool(def.ConsumeFromMinEnable),
		ConsumeBroadcastEnable: lbool(def.ConsumeBroadcastEnable), RetryQueueNums: lint32(def.RetryQueueNums),
		RetryMaxTimes: lint32(def.RetryMaxTimes), BrokerID: lint64(def.BrokerID),
		WhichBrokerWhenConsumeSlowly:   lint64(def.WhichBrokerWhenConsumeSlowly),
		NotifyConsumerIdsChangedEnable: lbool(def.NotifyConsumerIdsChangedEnable),
	}
	if err := jsonAPI.Unmarshal(data, &raw); err != nil {
		return err
	}
	*s = SubscriptionGroupConfig{GroupName: string(raw.GroupName), ConsumeEnable: bool(raw.ConsumeEnable),
		ConsumeFromMinEnable: bool(raw.ConsumeFromMinEnable), ConsumeBroadcastEnable: bool(raw.ConsumeBroadcastEnable),
		RetryQueueNums: int32(raw.RetryQueueNums), RetryMaxTimes: int32(raw.RetryMaxTimes), BrokerID: int64(raw.BrokerID),
		WhichBrokerWhenConsumeSlowly:   int64(raw.WhichBrokerWhenConsumeSlowly),
		NotifyConsumerIdsChangedEnable: bool(raw.NotifyConsumerIdsChangedEnable)}
	return nil
}
