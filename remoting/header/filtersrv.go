package header

// Filter-server headers (Java 4.9.8 protocol.header.filtersrv). The broker
// serves REGISTER_FILTER_SERVER; REGISTER_MESSAGE_FILTER_CLASS goes from a
// client to a filter server and is kept for completeness.

// RegisterFilterServerRequestHeader is REGISTER_FILTER_SERVER (301).
type RegisterFilterServerRequestHeader struct {
	FilterServerAddr string `ext:"filterServerAddr,required"`
}

// RegisterFilterServerResponseHeader answers REGISTER_FILTER_SERVER.
type RegisterFilterServerResponseHeader struct {
	BrokerName string `ext:"brokerName,required"`
	BrokerID   int64  `ext:"brokerId,required"`
}

// RegisterMessageFilterClassRequestHeader is REGISTER_MESSAGE_FILTER_CLASS (302).
type RegisterMessageFilterClassRequestHeader struct {
	ConsumerGroup string `ext:"consumerGroup,required"`
	Topic         string `ext:"topic,required"`
	ClassName     string `ext:"className,required"`
	ClassCRC      int32  `ext:"classCRC,required"`
}

// ToExtFields implements CommandCustomHeader.
func (h *RegisterFilterServerRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *RegisterFilterServerRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *RegisterFilterServerResponseHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *RegisterFilterServerResponseHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *RegisterMessageFilterClassRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *RegisterMessageFilterClassRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}
