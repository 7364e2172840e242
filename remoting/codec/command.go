package codec

import "github.com/rocketmq-go/rmq/remoting/code"

// SerializeType selects the header encoding of one frame (top byte of the second word).
type SerializeType uint8

// The two header serializations of Java's SerializeType enum.
const (
	JSON     SerializeType = 0
	RocketMQ SerializeType = 1
)

// String returns Java's enum name, as written in serializeTypeCurrentRPC.
func (s SerializeType) String() string {
	if s == RocketMQ {
		return "ROCKETMQ"
	}
	return "JSON"
}

// Flag bits of the header's flag field.
const (
	FlagResponse int32 = 1 << 0 // RPC_TYPE
	FlagOneway   int32 = 1 << 1 // RPC_ONEWAY
)

// DefaultMaxFrameLength is Java's com.rocketmq.remoting.frameMaxLength default.
const DefaultMaxFrameLength = 16 << 20

// RemotingCommand is one remoting request or response.
type RemotingCommand struct {
	Code          int32
	Language      code.LanguageCode
	Version       int32
	Opaque        int32
	Flag          int32
	Remark        string
	ExtFields     map[string]string // nil: no custom header
	Body          []byte
	SerializeType SerializeType
	// ExtSource writes the custom header of a command built in Go when
	// ExtFields is nil (extsource.go); Ext and Fields read it as a map.
	ExtSource ExtSource

	// layout remembers what Decode saw (key order, null vs empty) so that
	// re-encoding a decoded frame reproduces its bytes; nil for new commands.
	layout *headerLayout
}

// NewRequest returns a request from this server: language JAVA, version
// code.CurrentVersion, JSON header. Opaque is left 0 for the transport to assign.
func NewRequest(c int32, ext map[string]string, body []byte) *RemotingCommand {
	return &RemotingCommand{Code: c, Language: code.Java, Version: code.CurrentVersion, ExtFields: ext, Body: body}
}

// NewResponse returns a response with the response flag set; the transport
// copies opaque and serialize type from the request.
func NewResponse(c int32, remark string) *RemotingCommand {
	return &RemotingCommand{Code: c, Language: code.Java, Version: code.CurrentVersion, Flag: FlagResponse, Remark: remark}
}

// IsResponse reports whether the response bit is set.
func (c *RemotingCommand) IsResponse() bool { return c.Flag&FlagResponse != 0 }

// IsOneway reports whether the oneway bit is set.
func (c *RemotingCommand) IsOneway() bool { return c.Flag&FlagOneway != 0 }

// MarkResponse sets the response bit.
func (c *RemotingCommand) MarkResponse() { c.Flag |= FlagResponse }

// MarkOneway sets the oneway bit.
func (c *RemotingCommand) MarkOneway() { c.Flag |= FlagOneway }

// Ext returns the custom-header field key, "" when absent. It builds no
// map for a lazily decoded command.
func (c *RemotingCommand) Ext(key string) string {
	if c.lazyExt() {
		v, _ := c.layout.lazyLookup(c.layout.src, key)
		return v
	}
	if c.ExtFields == nil && c.ExtSource != nil {
		return sourceMap(c.ExtSource)[key]
	}
	return c.ExtFields[key]
}

// SetExt sets one custom-header field, creating the map if needed.
func (c *RemotingCommand) SetExt(key, value string) {
	c.Fields()
	if c.ExtFields == nil {
		c.ExtFields = make(map[string]string, 8)
	}
	c.ExtFields[key] = value
}
