package codec

import (
	"slices"
	"strconv"
	"strings"
)

// Non-string extFields values.
//
// Java reads the JSON header with fastjson into a HashMap<String,String>;
// a value that is not a JSON string is turned into text as fastjson does:
//
//   - an integer keeps its own text ("007" stays "007", "-0" stays "-0");
//   - a number with a fraction or an exponent is a java.math.BigDecimal,
//     so it becomes BigDecimal.toString() of it: 1e3 is "1E+3", 1.50 is
//     "1.50", 150e-1 is "15.0", 0.0000001 is "1E-7", -0.0 is "0.0";
//   - true and false become "true" and "false"; null leaves no value (Java
//     keeps the key with a null value, which reads like an absent key);
//   - an object or array becomes fastjson's JSONObject/JSONArray text:
//     object keys in java.util.HashMap iteration order, null members left
//     out (array elements kept as null), integers as Integer/Long/BigInteger
//     text (leading zeros and the sign of zero dropped), fractions as
//     BigDecimal text, strings escaped as fastjson writes them.
//
// fastjson also takes much that is not JSON (single quotes, unquoted keys,
// extra commas, number suffixes like 1.5F, "new Date(0)") and gives the
// keys "@type" and "$ref" a meaning of their own; the decoder rejects all
// of those as malformed rather than guess.

// maxValueDepth bounds the nesting of an extFields value: the parser
// recurses once per level, and no client nests at all.
const maxValueDepth = 64

// extNonString reads a value that does not start with '"' and returns its
// text as Java would see it; null reports ok false.
func (p *jsonParser) extNonString() (v string, ok bool, err error) {
	if p.i >= len(p.s) {
		return "", false, malformed(p, "truncated value")
	}
	switch c := p.s[p.i]; {
	case c == '{' || c == '[':
		out, err := p.appendValue(nil, 0)
		if err != nil {
			return "", false, err
		}
		return string(out), true, nil
	case c == '-' || c >= '0' && c <= '9':
		start := p.i
		n, err := p.scanNumber()
		if err != nil {
			return "", false, err
		}
		if n.integer() {
			return p.keep(start, p.i), true, nil // fastjson keeps the number's text
		}
		return string(n.appendDecimal(nil)), true, nil
	}
	start := p.i
	lit, isLit := p.literal()
	if !isLit {
		return "", false, malformed(p, "unexpected value")
	}
	if lit == "null" {
		return "", false, nil
	}
	return p.keep(start, p.i), true, nil
}

// jsonNumber is a scanned number: -?int(.frac)?([eE]exp)?, where frac may
// be empty ("1." as fastjson allows); exp is bounded so that scales fit.
type jsonNumber struct {
	neg      bool
	intPart  string
	fracPart string
	hasPoint bool
	hasExp   bool
	exp      int64
}

func (n *jsonNumber) integer() bool { return !n.hasPoint && !n.hasExp }

// scanNumber reads a number at p.i; it must be followed by a delimiter.
func (p *jsonParser) scanNumber() (jsonNumber, error) {
	var n jsonNumber
	s := p.s
	n.neg = p.eat('-')
	digits := func() string {
		start := p.i
		for p.i < len(s) && s[p.i] >= '0' && s[p.i] <= '9' {
			p.i++
		}
		return s[start:p.i]
	}
	if n.intPart = digits(); n.intPart == "" {
		return n, malformed(p, "expected a digit")
	}
	if p.eat('.') {
		n.hasPoint = true
		n.fracPart = digits()
	}
	if p.i < len(s) && (s[p.i] == 'e' || s[p.i] == 'E') {
		p.i++
		n.hasExp = true
		negExp := false
		if p.i < len(s) && (s[p.i] == '+' || s[p.i] == '-') {
			negExp = s[p.i] == '-'
			p.i++
		}
		e := digits()
		if e == "" {
			return n, malformed(p, "expected an exponent")
		}
		for _, d := range []byte(e) {
			if n.exp = n.exp*10 + int64(d-'0'); n.exp > 1e9 {
				return n, malformed(p, "exponent out of range") // BigDecimal refuses it too
			}
		}
		if negExp {
			n.exp = -n.exp
		}
	}
	if p.i < len(s) {
		switch s[p.i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
		default:
			return n, malformed(p, "bad number")
		}
	}
	return n, nil
}

// appendDecimal writes the number as java.math.BigDecimal.toString() of
// new BigDecimal(text): the unscaled digits without leading zeros, scale
// len(frac)-exp; plain notation when the scale is not negative and the
// adjusted exponent is at least -6, else one digit, a point and "E±n".
func (n *jsonNumber) appendDecimal(dst []byte) []byte {
	coef := strings.TrimLeft(n.intPart+n.fracPart, "0")
	if coef == "" {
		coef = "0"
	} else if n.neg {
		dst = append(dst, '-') // BigDecimal zero has no sign
	}
	scale := int64(len(n.fracPart)) - n.exp
	adjusted := -scale + int64(len(coef)-1)
	switch {
	case scale == 0:
		return append(dst, coef...)
	case scale > 0 && adjusted >= -6:
		if pad := scale - int64(len(coef)); pad >= 0 {
			dst = append(dst, "0."...)
			for range pad {
				dst = append(dst, '0')
			}
			return append(dst, coef...)
		}
		point := int64(len(coef)) - scale
		dst = append(dst, coef[:point]...)
		dst = append(dst, '.')
		return append(dst, coef[point:]...)
	}
	dst = append(dst, coef[0])
	if len(coef) > 1 {
		dst = append(dst, '.')
		dst = append(dst, coef[1:]...)
	}
	dst = append(dst, 'E')
	if adjusted > 0 {
		dst = append(dst, '+')
	}
	return strconv.AppendInt(dst, adjusted, 10)
}

// appendValue reads any JSON value at p.i and appends it as fastjson
// writes the Java object it parses it into (JSONObject, JSONArray, String,
// Integer/Long/BigInteger, BigDecimal, Boolean). null appends "null".
func (p *jsonParser) appendValue(dst []byte, depth int) ([]byte, error) {
	if depth >= maxValueDepth {
		return dst, malformed(p, "value nested too deeply")
	}
	p.ws()
	if p.i >= len(p.s) {
		return dst, malformed(p, "truncated value")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.appendObject(dst, depth)
	case c == '[':
		return p.appendArray(dst, depth)
	case c == '"':
		s, err := p.strCopy()
		if err != nil {
			return dst, err
		}
		return appendJSONString(dst, s, styleJava), nil
	case c == '-' || c >= '0' && c <= '9':
		n, err := p.scanNumber()
		if err != nil {
			return dst, err
		}
		if n.integer() {
			return n.appendInteger(dst), nil
		}
		return n.appendDecimal(dst), nil
	}
	lit, ok := p.literal()
	if !ok {
		return dst, malformed(p, "unexpected value")
	}
	return append(dst, lit...), nil
}

// appendInteger writes an integer as Integer, Long or BigInteger text.
func (n *jsonNumber) appendInteger(dst []byte) []byte {
	digits := strings.TrimLeft(n.intPart, "0")
	if digits == "" {
		return append(dst, '0')
	}
	if n.neg {
		dst = append(dst, '-')
	}
	return append(dst, digits...)
}

func (p *jsonParser) appendArray(dst []byte, depth int) ([]byte, error) {
	p.i++ // [
	dst = append(dst, '[')
	if p.ws(); p.eat(']') {
		return append(dst, ']'), nil
	}
	for {
		var err error
		if dst, err = p.appendValue(dst, depth+1); err != nil {
			return dst, err
		}
		p.ws()
		if p.eat(']') {
			return append(dst, ']'), nil
		}
		if !p.eat(',') {
			return dst, malformed(p, "expected , or ]")
		}
		dst = append(dst, ',')
	}
}

// member is one entry of a nested object, its value already written.
type member struct {
	key    string
	value  []byte
	null   bool
	bucket uint32
}

func (p *jsonParser) appendObject(dst []byte, depth int) ([]byte, error) {
	p.i++ // {
	var ms []member
	var index map[string]int // key → position in ms, once ms is long
	if p.ws(); !p.eat('}') {
		for {
			p.ws()
			k, err := p.strCopy()
			if err != nil {
				return dst, err
			}
			if k == "@type" || k == "$ref" {
				// fastjson resolves these (a class to build, a reference to
				// an object already read); Java's result is no plain text
				return dst, malformed(p, "fastjson special key "+k)
			}
			if p.ws(); !p.eat(':') {
				return dst, malformed(p, "expected :")
			}
			p.ws()
			null := p.peekNull()
			v, err := p.appendValue(nil, depth+1)
			if err != nil {
				return dst, err
			}
			// a repeated key keeps its place and takes the new value
			if j := memberIndex(ms, index, k); j >= 0 {
				ms[j].value, ms[j].null = v, null
			} else {
				ms = append(ms, member{key: k, value: v, null: null})
				if index != nil {
					index[k] = len(ms) - 1
				} else if len(ms) == 16 {
					index = make(map[string]int, 32)
					for i, m := range ms {
						index[m.key] = i
					}
				}
			}
			p.ws()
			if p.eat('}') {
				break
			}
			if !p.eat(',') {
				return dst, malformed(p, "expected , or }")
			}
		}
	}
	return appendHashMapObject(dst, ms), nil
}

// memberIndex finds key k among the members: by index once there is one,
// so that a huge object does not cost quadratic time.
func memberIndex(ms []member, index map[string]int, k string) int {
	if index != nil {
		if j, ok := index[k]; ok {
			return j
		}
		return -1
	}
	return slices.IndexFunc(ms, func(m member) bool { return m.key == k })
}

func (p *jsonParser) peekNull() bool {
	return len(p.s)-p.i >= 4 && p.s[p.i:p.i+4] == "null"
}

// appendHashMapObject writes the members in the iteration order of the
// java.util.HashMap (default capacity 16, load factor 0.75) they were put
// into in order: by bucket, then by insertion. Null members are left out,
// as fastjson leaves out null map values.
func appendHashMapObject(dst []byte, ms []member) []byte {
	capacity := 16
	for len(ms) > capacity*3/4 {
		capacity *= 2
	}
	for i := range ms {
		h := javaStringHash(ms[i].key)
		ms[i].bucket = (h ^ h>>16) & uint32(capacity-1)
	}
	slices.SortStableFunc(ms, func(a, b member) int { return int(a.bucket) - int(b.bucket) })
	dst = append(dst, '{')
	first := true
	for _, m := range ms {
		if m.null {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = appendJSONString(dst, m.key, styleJava)
		dst = append(dst, ':')
		dst = append(dst, m.value...)
	}
	return append(dst, '}')
}
