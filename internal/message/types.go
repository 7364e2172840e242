package message

import "net/netip"

// Message is what a producer sends: topic, user flag, properties and body.
type Message struct {
	Topic      string
	Flag       int32
	Properties map[string]string
	Body       []byte
}

// Property returns the value of property name ("" when absent).
func (m *Message) Property(name string) string { return m.Properties[name] }

// Tags returns the TAGS property.
func (m *Message) Tags() string { return m.Properties[PropertyTags] }

// Keys returns the KEYS property (space-separated keys).
func (m *Message) Keys() string { return m.Properties[PropertyKeys] }

// MessageExt is one CommitLog record with every stored field decoded
// (Java MessageExt / MessageExtBrokerInner).
//
// PropertiesString is the properties exactly as stored; EncodeRecord writes
// it and ignores Properties, so callers that edit Properties must refresh it
// with MarshalProperties. DecodeRecord fills both.
type MessageExt struct {
	Message
	PropertiesString          string
	StoreSize                 int32
	BodyCRC                   int32
	QueueID                   int32
	QueueOffset               int64
	CommitLogOffset           int64
	SysFlag                   int32
	BornTimestamp             int64
	BornHost                  netip.AddrPort
	StoreTimestamp            int64
	StoreHost                 netip.AddrPort
	ReconsumeTimes            int32
	PreparedTransactionOffset int64
	// MsgID is the offsetMsgId (store host + physical offset) set by
	// DecodeRecord; EncodeRecord ignores it.
	MsgID string
}
