package transaction

import "github.com/rocketmq-go/rmq/internal/message"

// Props is a half message's properties in java.util.HashMap order; the
// check and commit paths render them back byte-equal to Java's.
type Props = message.HashMapProperties

// ParseProps is MessageDecoder.string2messageProperties.
func ParseProps(s string) *Props { return message.ParseHashMapProperties(s) }
