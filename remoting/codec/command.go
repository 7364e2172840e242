package codec

import "github.com/rocketmq-go/rmq/remoting/code"

// SerializeType selects the header encoding of one frame (top byte of the second word).
type SerializeType uint8

const (
	JSON     SerializeType = 0
	RocketMQ SerializeType = 1
)

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

	// layout remembers what Decode saw (key order, null vs empty) so that
	// re-encoding a decoded frame reproduces its bytes; nil for new commands.
	layout *headerLayout
}

// IsResponse reports whether the response bit is set.
func (c *RemotingCommand) IsResponse() bool { return c.Flag&FlagResponse != 0 }

// IsOneway reports whether the oneway bit is set.
func (c *RemotingCommand) IsOneway() bool { return c.Flag&FlagOneway != 0 }
