package body

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/rocketmq-go/rmq/internal/message"
)

// ErrBadJSON wraps every Normalize failure.
var ErrBadJSON = errors.New("body: malformed fastjson text")

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 512

// Normalize turns fastjson output into standard JSON so json-iterator can read
// it: unquoted integer (or identifier) keys become quoted strings, object or
// array keys become a string holding their compact normalized JSON, single
// quoted strings become double quoted. Whitespace outside strings is dropped.
func Normalize(data []byte) ([]byte, error) {
	n := normalizer{in: data, out: make([]byte, 0, len(data)+16)}
	n.skipWS()
	if err := n.value(0); err != nil {
		return nil, err
	}
	n.skipWS()
	if n.pos != len(n.in) {
		return nil, n.fail("trailing data")
	}
	return n.out, nil
}

type normalizer struct {
	in  []byte
	pos int
	out []byte
}

func (n *normalizer) fail(what string) error {
	return fmt.Errorf("%w: %s at offset %d", ErrBadJSON, what, n.pos)
}

func (n *normalizer) skipWS() {
	for n.pos < len(n.in) {
		switch n.in[n.pos] {
		case ' ', '\t', '\n', '\r', '\f':
			n.pos++
		default:
			return
		}
	}
}

func (n *normalizer) peek() byte {
	if n.pos < len(n.in) {
		return n.in[n.pos]
	}
	return 0
}

func (n *normalizer) value(depth int) error {
	if depth > maxDepth {
		return n.fail("nesting too deep")
	}
	switch c := n.peek(); {
	case c == '{':
		return n.object(depth)
	case c == '[':
		return n.array(depth)
	case c == '"' || c == '\'':
		s, err := n.str()
		if err != nil {
			return err
		}
		n.out = AppendString(n.out, s, false)
		return nil
	case c == '-' || (c >= '0' && c <= '9'):
		tok := n.number()
		if !validJSONNumber(tok) {
			return n.fail("bad number")
		}
		n.out = append(n.out, tok...)
		return nil
	default:
		return n.literal()
	}
}

func (n *normalizer) literal() error {
	for _, lit := range [...]string{"true", "false", "null"} {
		if len(n.in)-n.pos >= len(lit) && string(n.in[n.pos:n.pos+len(lit)]) == lit {
			n.out = append(n.out, lit...)
			n.pos += len(lit)
			return nil
		}
	}
	return n.fail("unexpected character")
}

func (n *normalizer) number() []byte {
	start := n.pos
	for n.pos < len(n.in) {
		c := n.in[n.pos]
		if (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			n.pos++
			continue
		}
		break
	}
	// fastjson may suffix longs/floats with L, F, D; drop the suffix.
	tok := n.in[start:n.pos]
	if c := n.peek(); c == 'L' || c == 'F' || c == 'D' {
		n.pos++
	}
	return tok
}

// validJSONNumber checks the JSON number grammar: -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?
func validJSONNumber(b []byte) bool {
	i := 0
	digits := func() int {
		s := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i - s
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(b)
}

func (n *normalizer) object(depth int) error {
	return n.sequence('}', "expected ',' in object", func() error {
		if err := n.key(depth); err != nil {
			return err
		}
		n.skipWS()
		if n.peek() != ':' {
			return n.fail("expected ':'")
		}
		n.pos++
		n.out = append(n.out, ':')
		n.skipWS()
		return n.value(depth + 1)
	})
}

// sequence copies the container opening at pos ('{' or '['), reading its
// comma-separated elements with elem up to the closing byte end.
func (n *normalizer) sequence(end byte, missingComma string, elem func() error) error {
	n.out = append(n.out, n.in[n.pos])
	n.pos++
	for first := true; ; first = false {
		n.skipWS()
		if n.peek() == end {
			n.pos++
			n.out = append(n.out, end)
			return nil
		}
		if !first {
			if n.peek() != ',' {
				return n.fail(missingComma)
			}
			n.pos++
			n.out = append(n.out, ',')
			n.skipWS()
		}
		if err := elem(); err != nil {
			return err
		}
	}
}

func (n *normalizer) key(depth int) error {
	switch c := n.peek(); {
	case c == '"' || c == '\'':
		s, err := n.str()
		if err != nil {
			return err
		}
		n.out = AppendString(n.out, s, false)
	case c == '{' || c == '[':
		sub := normalizer{in: n.in, pos: n.pos}
		if err := sub.value(depth + 1); err != nil {
			return err
		}
		n.pos = sub.pos
		n.out = AppendString(n.out, string(sub.out), false)
	case c == '-' || (c >= '0' && c <= '9'):
		tok := n.number()
		n.out = AppendString(n.out, string(tok), false)
	case isIdentStart(c):
		start := n.pos
		for n.pos < len(n.in) && isIdentPart(n.in[n.pos]) {
			n.pos++
		}
		n.out = AppendString(n.out, string(n.in[start:n.pos]), false)
	default:
		return n.fail("bad object key")
	}
	return nil
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentPart(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

func (n *normalizer) array(depth int) error {
	return n.sequence(']', "expected ',' in array", func() error { return n.value(depth + 1) })
}

// str decodes one quoted string (either quote character) at pos.
func (n *normalizer) str() (string, error) {
	q := n.in[n.pos]
	n.pos++
	var b []byte
	for n.pos < len(n.in) {
		c := n.in[n.pos]
		n.pos++
		switch {
		case c == q:
			return string(b), nil
		case c != '\\':
			b = append(b, c)
		case n.pos >= len(n.in):
			return "", n.fail("unterminated escape")
		default:
			var err error
			if b, err = n.escape(b); err != nil {
				return "", err
			}
		}
	}
	return "", n.fail("unterminated string")
}

func (n *normalizer) escape(b []byte) ([]byte, error) {
	e := n.in[n.pos]
	n.pos++
	switch e {
	case 'b':
		return append(b, '\b'), nil
	case 'f':
		return append(b, '\f'), nil
	case 'n':
		return append(b, '\n'), nil
	case 'r':
		return append(b, '\r'), nil
	case 't':
		return append(b, '\t'), nil
	case 'u':
		if len(n.in)-n.pos < 4 {
			return nil, n.fail("short \\u escape")
		}
		v, err := strconv.ParseUint(string(n.in[n.pos:n.pos+4]), 16, 16)
		if err != nil {
			return nil, n.fail("bad \\u escape")
		}
		n.pos += 4
		r := rune(v)
		if r >= 0xD800 && r < 0xDC00 && len(n.in)-n.pos >= 6 && n.in[n.pos] == '\\' && n.in[n.pos+1] == 'u' {
			if lo, err := strconv.ParseUint(string(n.in[n.pos+2:n.pos+6]), 16, 16); err == nil && lo >= 0xDC00 && lo < 0xE000 {
				n.pos += 6
				r = (r-0xD800)<<10 | (rune(lo) - 0xDC00) + 0x10000
			}
		}
		return utf8.AppendRune(b, r), nil
	case 'x':
		if len(n.in)-n.pos < 2 {
			return nil, n.fail("short \\x escape")
		}
		v, err := strconv.ParseUint(string(n.in[n.pos:n.pos+2]), 16, 8)
		if err != nil {
			return nil, n.fail("bad \\x escape")
		}
		n.pos += 2
		return utf8.AppendRune(b, rune(v)), nil
	default:
		return append(b, e), nil
	}
}

const hexDigits = "0123456789ABCDEF"

// AppendString appends s as a fastjson double-quoted string. Quote, backslash
// and control characters are escaped; browserCompatible (the feature the name
// server uses for standard route JSON) also escapes '/' and every non-ASCII
// character as \uXXXX (UTF-16 units).
func AppendString(dst []byte, s string, browserCompatible bool) []byte {
	dst = append(dst, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			dst = append(dst, '\\', byte(r))
		case r == '\n':
			dst = append(dst, '\\', 'n')
		case r == '\r':
			dst = append(dst, '\\', 'r')
		case r == '\t':
			dst = append(dst, '\\', 't')
		case r == '\b':
			dst = append(dst, '\\', 'b')
		case r == '\f':
			dst = append(dst, '\\', 'f')
		case r < 0x20:
			dst = appendU(dst, r)
		case browserCompatible && r == '/':
			dst = append(dst, '\\', '/')
		case browserCompatible && r > 0x7E:
			if r >= 0x10000 {
				r -= 0x10000
				dst = appendU(dst, 0xD800+(r>>10))
				dst = appendU(dst, 0xDC00+(r&0x3FF))
			} else {
				dst = appendU(dst, r)
			}
		default:
			dst = utf8.AppendRune(dst, r)
		}
	}
	return append(dst, '"')
}

func appendU(dst []byte, r rune) []byte {
	return append(dst, '\\', 'u', hexDigits[r>>12&0xF], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
}

// AppendKey appends `"name":` for a bean field or string map key.
func AppendKey(dst []byte, name string, browserCompatible bool) []byte {
	return append(AppendString(dst, name, browserCompatible), ':')
}

// AppendIntKey appends an integer map key followed by ':'. fastjson writes
// integer keys bare ({0:"a"}) unless QuoteFieldNames applies to them
// (quoted, as the name server's standard route JSON does).
func AppendIntKey(dst []byte, k int64, quoted bool) []byte {
	if quoted {
		dst = append(dst, '"')
	}
	dst = strconv.AppendInt(dst, k, 10)
	if quoted {
		dst = append(dst, '"')
	}
	return append(dst, ':')
}

// AppendStringList appends a JSON array of strings in the given order.
func AppendStringList(dst []byte, list []string, browserCompatible bool) []byte {
	dst = append(dst, '[')
	for i, s := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, s, browserCompatible)
	}
	return append(dst, ']')
}

// JavaStringHash is java.lang.String.hashCode (over UTF-16 units), the
// one in package message.
func JavaStringHash(s string) int32 { return message.JavaStringHash(s) }

// javaSpread is HashMap.hash: the high half folded into the low half.
func javaSpread(h int32) uint32 { return message.HashMapSpread(h) }

// JavaHashMapCapacity is the table size of a java.util.HashMap that started at
// initial capacity initCap (16 for the no-arg constructor) and grew by puts to
// hold n entries (load factor 0.75; tables never shrink).
func JavaHashMapCapacity(n, initCap int) int { return message.HashMapCapacity(n, initCap) }

// SortJavaHashOrder sorts string keys into the iteration order of Java hash
// tables of the given capacities: by bucket in the first capacity, ties by
// bucket in the next one (the table the keys were copied from), and so on,
// then by the strings themselves. With one capacity and no bucket collisions
// this is exactly java.util.HashMap/HashSet iteration order; collisions inside
// a bucket follow insertion order in Java, which is approximated.
func SortJavaHashOrder(keys []string, capacities ...int) {
	slices.SortStableFunc(keys, func(a, b string) int {
		ha, hb := javaSpread(JavaStringHash(a)), javaSpread(JavaStringHash(b))
		for _, c := range capacities {
			m := uint32(c - 1)
			if x, y := ha&m, hb&m; x != y {
				return cmp.Compare(x, y)
			}
		}
		return cmp.Compare(a, b)
	})
}

// SortJavaLongKeys sorts int64 keys as a small java.util.HashMap<Long,…>
// iterates them: Long.hashCode buckets, which for small non-negative ids is
// ascending order.
func SortJavaLongKeys(keys []int64, capacity int) {
	m := uint32(capacity - 1)
	slices.SortFunc(keys, func(a, b int64) int {
		ha := javaSpread(int32(a ^ a>>32))
		hb := javaSpread(int32(b ^ b>>32))
		if x, y := ha&m, hb&m; x != y {
			return cmp.Compare(x, y)
		}
		return cmp.Compare(a, b)
	})
}
