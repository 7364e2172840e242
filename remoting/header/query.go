package header

// Message query headers: by key (index) and by offsetMsgId.

// QueryMessageRequestHeader is QUERY_MESSAGE (12). Java's client also sends
// it with the extra key "_UNIQUE_KEY_QUERY" for unique-key lookups; that key
// is read from extFields directly and is not part of this struct.
type QueryMessageRequestHeader struct {
	Topic          string `ext:"topic,required"`
	Key            string `ext:"key,required"`
	MaxNum         int32  `ext:"maxNum,required"`
	BeginTimestamp int64  `ext:"beginTimestamp,required"`
	EndTimestamp   int64  `ext:"endTimestamp,required"`
}

// QueryMessageResponseHeader answers QUERY_MESSAGE.
type QueryMessageResponseHeader struct {
	IndexLastUpdateTimestamp int64 `ext:"indexLastUpdateTimestamp,required"`
	IndexLastUpdatePhyoffset int64 `ext:"indexLastUpdatePhyoffset,required"`
}

// ViewMessageRequestHeader is VIEW_MESSAGE_BY_ID (33); Offset is the
// commit-log offset decoded from the offsetMsgId.
type ViewMessageRequestHeader struct {
	Offset int64 `ext:"offset,required"`
}

// ViewMessageResponseHeader answers VIEW_MESSAGE_BY_ID (no fields).
type ViewMessageResponseHeader struct{}

// ToExtFields implements CommandCustomHeader.
func (h *QueryMessageRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *QueryMessageRequestHeader) FromExtFields(ext map[string]string) error { return decode(ext, h) }

// ToExtFields implements CommandCustomHeader.
func (h *QueryMessageResponseHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *QueryMessageResponseHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *ViewMessageRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *ViewMessageRequestHeader) FromExtFields(ext map[string]string) error { return decode(ext, h) }

// ToExtFields implements CommandCustomHeader.
func (h *ViewMessageResponseHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *ViewMessageResponseHeader) FromExtFields(ext map[string]string) error { return decode(ext, h) }
