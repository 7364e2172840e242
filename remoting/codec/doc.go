// Package codec encodes and decodes RocketMQ remoting frames: the
// RemotingCommand and its two header serializations, JSON (fastjson style)
// and ROCKETMQ (binary). It is pure []byte code with no I/O.
//
// Frame (all integers big-endian):
//
//	0          4              8                  8+H             4+L
//	+----------+--------------+------------------+---------------+
//	| L (i32)  | T<<24 | H    | header (H bytes) | body          |
//	+----------+--------------+------------------+---------------+
//	L = 4 + H + len(body)  (excludes the length word itself)
//	T = serialize type: 0 JSON, 1 ROCKETMQ;  H < 2^24
//
// JSON header, as Java 4.9.8 (fastjson) writes it: keys in alphabetical
// order, null remark and extFields omitted, extFields in java.util.HashMap
// iteration order:
//
//	{"code":105,"extFields":{"topic":"TopicTest"},"flag":0,"language":"JAVA",
//	 "opaque":0,"serializeTypeCurrentRPC":"JSON","version":409}
//
// ROCKETMQ header:
//
//	code i16 | language u8 | version i16 | opaque i32 | flag i32 |
//	remarkLen i32 | remark | extLen i32 | { keyLen i16 | key | valLen i32 | val }*
//
// A zero-length ROCKETMQ string is Java null: remark reads as "", an ext
// value as an absent key.
//
// Invariants:
//   - Decode never panics and never reads outside its input; impossible
//     lengths give errors wrapping ErrBadFrame, ErrFrameTooLarge or
//     ErrMalformedHeader.
//   - Decode accepts either header in any key order, with unknown keys,
//     nulls, whitespace and escapes. It remembers how the header was written
//     (key order, escaping style, Java nulls) and Encode of an unmodified
//     decoded command reproduces the frame byte for byte whenever the input
//     was in a form Java or the Go client writes. The encoder always rebuilds
//     the bytes from the fields; changed fields show up in the output.
//   - Commands built in Go encode exactly as Java's RemotingCommand would.
//   - A JSON extFields value that is not a string (numbers and booleans from
//     the C++ client and ali-ons, or any other JSON value) reads as the text
//     Java's fastjson makes of it (json_value.go); null reads as absent.
//   - DecodeLazy reads like Decode but leaves the extFields map of a plain
//     send request (LazyExtCode) unbuilt: Ext, RangeExt and Fields read it;
//     ExtFields is nil until Fields or SetExt builds it (lazy.go). A
//     command built in Go may carry an ExtSource instead of a map
//     (extsource.go).
//   - Body aliases the decoded frame; every string is a copy. Decode makes
//     one copy of the header (of the ext section for ROCKETMQ) and every
//     decoded string is a substring of it: JSON escapes are decoded in place
//     over their own raw text, which is never longer. A decode allocates the
//     command with its layout, that string and the extFields map, nothing
//     else; the layout records the ext key order as offsets into the string.
//
// Limits of a fresh encode (a command built in Go, not decoded): extFields
// keys that share a HashMap bucket are written alphabetically, where Java
// writes them in its header class's field order; and Java's FastCodesHeader
// classes (send/pull headers) write ROCKETMQ ext entries in declaration order
// before the rest, which a plain map cannot express. Both only reorder
// entries; no client depends on the order. fastjson's \u escapes are taken to
// use upper-case hex and to cover U+007F..U+009F and U+2028/9 (from its
// IOUtils tables); the golden captures only show \u0001 and \u0002.
//
// Usage:
//
//	n, err := codec.FrameLength(buf, codec.DefaultMaxFrameLength)
//	if err == nil && n > 0 && len(buf) >= n {
//		cmd, err := codec.Decode(buf[:n])
//		...
//	}
//	out, err := codec.AppendFrame(out[:0], codec.NewResponse(code.Success, ""))
package codec
