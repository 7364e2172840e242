package codec

// escStyle is the JSON string-escaping convention of a header's writer.
type escStyle uint8

const (
	// styleJava is fastjson 1.2.x: \b \t \n \f \r \" \\ short escapes, other
	// controls, DEL..U+009F and U+2028/9 as \uXXXX with upper-case hex.
	styleJava escStyle = iota
	// styleGo is Go's encoding/json (as the Go client writes): short escapes
	// \b \f \n \r \t \" \\, other controls, < > & and U+2028/9 as \u00xx lower-case.
	styleGo
)

// Top-level JSON header keys; the values are their rank in Java's (alphabetical) order.
const (
	keyCode uint8 = iota
	keyExtFields
	keyFlag
	keyLanguage
	keyOpaque
	keyRemark
	keySerializeType
	keyVersion
	numKeys
)

var keyNames = [numKeys]string{"code", "extFields", "flag", "language", "opaque", "remark", "serializeTypeCurrentRPC", "version"}

// extKey is one custom-header key in wire order: its position in the
// layout's src (every decoded key is a substring of it), so that recording
// the order stores no pointers. extNull in n marks a key sent with no value
// (ROCKETMQ length 0, which Java reads as null): it is not in ExtFields, but
// re-encoding writes it back.
type extKey struct {
	off, n uint32
	// voff, vn locate the value in src while the layout is lazy (lazy.go);
	// unused otherwise.
	voff, vn uint32
}

// extNull flags a Java-null key in extKey.n; headers are under 2^24 bytes.
const extNull = 1 << 31

func (e extKey) null() bool { return e.n&extNull != 0 }

// rawField is a JSON top-level key the codec does not know, kept so that a
// decoded header re-encodes unchanged. key and value are the JSON text.
type rawField struct {
	after uint8 // number of known keys written before it
	key   string
	value string
}

// headerLayout remembers what the encoder cannot derive from the command's
// fields: how the decoded header was written. It never holds the header bytes;
// the encoder always rebuilds them from the fields, using this only for order
// and presence decisions.
type headerLayout struct {
	ser SerializeType
	// exact is false when the header used a form this encoder never writes
	// (whitespace, needless escapes, duplicate keys...): re-encoding then gives
	// the canonical form instead of the input bytes.
	exact bool

	// JSON only.
	style    escStyle
	keys     [numKeys]uint8 // known top-level keys in wire order
	nkeys    uint8
	langName string // language value when it was not a known enum name
	stName   string // serializeTypeCurrentRPC value as sent
	unknown  []rawField

	// Both serializations: custom-header keys in wire order, as positions in
	// src (the decoded header's string, which backs every decoded key).
	src      string
	extOrder []extKey
	dups     bool // extOrder names a key more than once
	pooled   bool // part of a decoded from decodedPool (Release)
	// lazy: the command's extFields map is not built yet (DecodeLazy); every
	// extOrder entry is then a distinct key with a plain value at voff/vn.
	lazy   bool
	extBuf [16]extKey // backing store for small headers
	// extHashes maps the seeded hash of a key to its first position in
	// extOrder[:extHashN], once extOrder is long (indexExt); nil before.
	extHashes map[uint64]int32
	extHashN  int
}

func (l *headerLayout) hasKey(k uint8) bool {
	for _, x := range l.keys[:l.nkeys] {
		if x == k {
			return true
		}
	}
	return false
}

// extName returns the key e names.
func (l *headerLayout) extName(e extKey) string {
	return l.src[e.off : e.off+e.n&^extNull]
}
