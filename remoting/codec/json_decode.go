package codec

import (
	"fmt"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/rocketmq-go/rmq/remoting/code"
)

// Byte classes for the string scanner (strCls).
const (
	clsStop = 1 << iota // '"' or '\\'
	clsCtl              // raw control character: neither writer leaves it raw
	clsJava             // raw DEL: fastjson would have escaped it
	clsGo               // raw < > &: encoding/json would have escaped it
	clsLead             // 0xC2 or 0xE2: may start U+0080..U+009F or U+2028/9
)

var strCls = func() (t [256]uint8) {
	for i := 0; i < 0x20; i++ {
		t[i] = clsCtl
	}
	t['"'], t['\\'] = clsStop, clsStop
	t[0x7F] = clsJava
	t['<'], t['>'], t['&'] = clsGo, clsGo, clsGo
	t[0xC2], t[0xE2] = clsLead, clsLead
	return t
}()

// jsonParser reads one header object. javaOK/goOK track whether every string
// is written exactly as fastjson / encoding/json would write it.
//
// s is the caller's header, only read, and b the parser's private copy of
// it: a string value with escapes is decoded into b over its own raw text
// (the decoded form is never longer), so every kept string is a view of b
// (keep) and the header costs one allocation. A region of b is never
// written after a view of it exists; the raw text of unknown keys and
// values, replayed later, is scanned without writing (strCopy).
type jsonParser struct {
	s      string
	b      []byte
	i      int
	strAt  int // where the last string returned by str starts in s
	lay    *headerLayout
	javaOK bool
	goOK   bool
	lazyOK bool    // DecodeLazy: extFields may stay unbuilt (lazy.go)
	saved  [3]bool // javaOK, goOK, exact before the current top-level key
}

// keep returns the text at [i, j) as a string backed by the private copy b.
func (p *jsonParser) keep(i, j int) string {
	if i == j {
		return ""
	}
	return unsafe.String(&p.b[i], j-i)
}

func malformed(p *jsonParser, what string) error {
	return fmt.Errorf("%w: %s at offset %d", ErrMalformedHeader, what, p.i)
}

// decodeJSON parses a JSON header in any key order, tolerating unknown keys,
// nulls and whitespace (the last three make the layout inexact).
func decodeJSON(c *RemotingCommand, lay *headerLayout, h []byte, lazyOK bool) error {
	// The parser reads the caller's bytes (never written, not retained) and
	// decodes into b, a private copy: every string it keeps is a view of a
	// region of b that is not written again once the view exists.
	b := make([]byte, len(h))
	copy(b, h)
	p := jsonParser{s: unsafe.String(unsafe.SliceData(h), len(h)), b: b, lay: lay, javaOK: true, goOK: true, lazyOK: lazyOK}
	lay.src = p.s // replaced by a view of b in finish
	p.ws()
	if !p.eat('{') {
		return malformed(&p, "expected {")
	}
	if p.ws(); p.eat('}') {
		return p.finish()
	}
	for {
		p.ws()
		kStart := p.i
		p.saved = [3]bool{p.javaOK, p.goOK, p.lay.exact}
		id, err := p.topKey()
		if err != nil {
			return err
		}
		kEnd := p.i
		if p.ws(); !p.eat(':') {
			return malformed(&p, "expected :")
		}
		p.ws()
		if err := p.field(c, id, kStart, kEnd); err != nil {
			return err
		}
		p.ws()
		if p.eat(',') {
			continue
		}
		if p.eat('}') {
			return p.finish()
		}
		return malformed(&p, "expected , or }")
	}
}

func (p *jsonParser) finish() error {
	if p.ws(); p.i != len(p.s) {
		return malformed(p, "trailing data")
	}
	p.lay.src = p.keep(0, len(p.b)) // b is final: no more writes
	if !p.javaOK {
		p.lay.style = styleGo
		if !p.goOK {
			p.lay.exact = false
		}
	}
	return nil
}

// topKey reads a top-level key and returns which one it is, numKeys for a
// key the codec does not know. A known key written plainly, as every
// client writes it, is matched in place by its first byte and its text.
func (p *jsonParser) topKey() (uint8, error) {
	if rest := p.s[p.i:]; len(rest) > 1 && rest[0] == '"' {
		if id := keyByFirst[rest[1]]; id < numKeys {
			if q := keyPrefixes[id]; strings.HasPrefix(rest, q[:len(q)-1]) {
				p.i += len(q) - 1
				return id, nil
			}
		}
	}
	k, err := p.strCopy()
	if err != nil {
		return 0, err
	}
	for id, name := range keyNames {
		if k == name {
			return uint8(id), nil
		}
	}
	return numKeys, nil
}

// keyByFirst names the top-level key starting with a byte (they all differ
// there), numKeys for none.
var keyByFirst = func() (t [256]uint8) {
	for i := range t {
		t[i] = numKeys
	}
	for id, name := range keyNames {
		t[name[0]] = uint8(id)
	}
	return t
}()

func (p *jsonParser) field(c *RemotingCommand, id uint8, kStart, kEnd int) error {
	var err error
	switch id {
	case keyCode:
		err = p.int32(&c.Code)
	case keyFlag:
		err = p.int32(&c.Flag)
	case keyOpaque:
		err = p.int32(&c.Opaque)
	case keyVersion:
		err = p.int32(&c.Version)
	case keyLanguage:
		err = p.language(c)
	case keyRemark:
		c.Remark, err = p.remark()
	case keySerializeType:
		p.lay.stName, err = p.optStr()
	case keyExtFields:
		err = p.extFields(c)
	default:
		return p.unknown(kStart, kEnd)
	}
	if err != nil {
		return err
	}
	p.record(id)
	return nil
}

// record notes a known key in wire order; a null value (p.null set by the
// value reader) leaves it out so that the encoder omits it too.
func (p *jsonParser) record(id uint8) {
	l := p.lay
	if l.hasKey(id) {
		l.exact = false
		return
	}
	if p.i >= 4 && p.s[p.i-4:p.i] == "null" {
		return
	}
	l.keys[l.nkeys] = id
	l.nkeys++
}

func (p *jsonParser) unknown(kStart, kEnd int) error {
	vStart := p.i
	if err := p.skipValue(); err != nil {
		return err
	}
	// an unknown field is replayed verbatim, so its text does not decide the
	// escaping style or exactness; only the separator is rebuilt
	p.javaOK, p.goOK, p.lay.exact = p.saved[0], p.saved[1], p.saved[2]
	if vStart != kEnd+1 {
		p.lay.exact = false
	}
	l := p.lay
	l.unknown = append(l.unknown, rawField{after: l.nkeys, key: p.keep(kStart, kEnd), value: p.keep(vStart, p.i)})
	return nil
}

// ws skips whitespace; the common compact header has none, so the check
// for a non-space byte stays small enough to inline.
func (p *jsonParser) ws() {
	if p.i < len(p.s) && p.s[p.i] > ' ' {
		return
	}
	p.wsSlow()
}

func (p *jsonParser) wsSlow() {
	start := p.i
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
			continue
		}
		break
	}
	if p.i != start {
		p.lay.exact = false
	}
}

func (p *jsonParser) eat(b byte) bool {
	if p.i < len(p.s) && p.s[p.i] == b {
		p.i++
		return true
	}
	return false
}

// literal consumes null, true or false and returns it.
func (p *jsonParser) literal() (string, bool) {
	if p.i >= len(p.s) {
		return "", false
	}
	var lit string
	switch p.s[p.i] {
	case 'n':
		lit = "null"
	case 't':
		lit = "true"
	case 'f':
		lit = "false"
	default:
		return "", false
	}
	if !strings.HasPrefix(p.s[p.i:], lit) {
		return "", false
	}
	p.i += len(lit)
	return lit, true
}

// int32 reads an integer field. Beyond a JSON integer it takes what
// fastjson puts into a Java int field: null and false as 0, true as 1, and
// a string holding an integer ("105", "+105", "105.0"; "" and "null" are
// 0). A number with a fraction or an exponent is refused (fastjson cuts
// 105.7 to 105 and wraps 1e10), as is any value outside int32.
func (p *jsonParser) int32(dst *int32) error {
	if p.i < len(p.s) && p.s[p.i] == '"' {
		return p.quotedInt32(dst)
	}
	if lit, ok := p.literal(); ok {
		*dst = 0
		if lit == "true" {
			*dst = 1
		}
		p.lay.exact = false
		return nil
	}
	start := p.i
	neg := p.eat('-')
	digits := p.i
	var v int64
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		v = v*10 + int64(p.s[p.i]-'0')
		if v > 1<<31 {
			return malformed(p, "number out of int32 range")
		}
		p.i++
	}
	n := p.i - digits
	switch {
	case n == 0:
		return malformed(p, "expected a number")
	case n > 1 && p.s[digits] == '0', neg && v == 0:
		p.lay.exact = false
	}
	if neg {
		v = -v
	}
	if v > 1<<31-1 || p.i < len(p.s) && (p.s[p.i] == '.' || p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i = start
		return malformed(p, "not an int32")
	}
	*dst = int32(v)
	return nil
}

// quotedInt32 reads an int field written as a JSON string, as fastjson
// parses it: an optional sign, digits and an all-zero fraction.
func (p *jsonParser) quotedInt32(dst *int32) error {
	start := p.i
	s, err := p.strCopy()
	if err != nil {
		return err
	}
	p.lay.exact = false
	if s == "" || s == "null" {
		*dst = 0
		return nil
	}
	neg := false
	if s[0] == '+' || s[0] == '-' {
		neg, s = s[0] == '-', s[1:]
	}
	if i := strings.IndexByte(s, '.'); i >= 0 && strings.Trim(s[i+1:], "0") == "" {
		s = s[:i]
	}
	var v int64
	ok := s != ""
	for i := 0; i < len(s) && ok; i++ {
		ok = s[i] >= '0' && s[i] <= '9'
		if v = v*10 + int64(s[i]-'0'); v > 1<<31 {
			ok = false
		}
	}
	if neg {
		v = -v
	}
	if !ok || v > 1<<31-1 {
		p.i = start
		return malformed(p, "not an int32 string")
	}
	*dst = int32(v)
	return nil
}

func (p *jsonParser) language(c *RemotingCommand) error {
	if p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		var n int32
		if err := p.int32(&n); err != nil {
			return err
		}
		c.Language = code.LanguageCode(n)
		p.lay.exact = false // fastjson reads ordinals but never writes them
		return nil
	}
	name, err := p.optStr()
	if err != nil {
		return err
	}
	l, ok := code.ParseLanguage(name)
	c.Language = l
	if !ok {
		p.lay.langName = name
	}
	return nil
}

// remark reads the remark: a string, null (""), or any other value as the
// text fastjson makes of it for a String field (as for extFields values).
func (p *jsonParser) remark() (string, error) {
	if p.i < len(p.s) && p.s[p.i] == '"' {
		return p.str()
	}
	p.lay.exact = false
	v, _, err := p.extNonString()
	return v, err
}

// optStr reads a string or null ("").
func (p *jsonParser) optStr() (string, error) {
	if lit, ok := p.literal(); ok {
		if lit != "null" {
			return "", malformed(p, "expected a string")
		}
		p.lay.exact = false
		return "", nil
	}
	return p.str()
}

func (p *jsonParser) extFields(c *RemotingCommand) error {
	if lit, ok := p.literal(); ok {
		if lit != "null" {
			return malformed(p, "expected an object")
		}
		p.lay.exact = false
		return nil
	}
	if !p.eat('{') {
		return malformed(p, "expected {")
	}
	if p.lazyCandidate(c) {
		p.lay.lazy = true
	} else {
		c.ExtFields = make(map[string]string, extCountHint(p.s[p.i:]))
	}
	if p.ws(); p.eat('}') {
		return nil
	}
	var seen keyFilter
	for {
		p.ws()
		k, err := p.str()
		if err != nil {
			return err
		}
		kAt := p.strAt
		if p.ws(); !p.eat(':') {
			return malformed(p, "expected :")
		}
		p.ws()
		if err := p.extValue(c, k, kAt, seen.add(k)); err != nil {
			return err
		}
		p.ws()
		if p.eat(',') {
			continue
		}
		if p.eat('}') {
			return nil
		}
		return malformed(p, "expected , or }")
	}
}

// extValue stores one custom-header value found at kAt. Java and Go only
// send strings; other clients send numbers and booleans too, which take the
// text fastjson gives them (json_value.go); null drops the key. isNew means
// k is certainly not a repeat.
func (p *jsonParser) extValue(c *RemotingCommand, k string, kAt int, isNew bool) error {
	if p.lay.lazy {
		done, err := p.lazyValue(c, k, kAt, isNew)
		if done || err != nil {
			return err
		}
	}
	m := c.ExtFields
	if p.i < len(p.s) && p.s[p.i] == '"' {
		v, err := p.str()
		if err != nil {
			return err
		}
		if isNew {
			m[k] = v
			p.lay.extOrder = append(p.lay.extOrder, extKey{off: uint32(kAt), n: uint32(len(k))})
			return nil
		}
		prev, had := m[k]
		m[k] = v
		p.lay.addExtKey(k, kAt, false, had && prev == v, had)
		return nil
	}
	p.lay.exact = false
	v, ok, err := p.extNonString()
	if err != nil {
		return err
	}
	if !ok {
		delete(m, k)
		return nil
	}
	// like a string: search the order for a repeat only when the map has
	// the key, so that a header of many keys costs linear time
	_, had := m[k]
	m[k] = v
	p.lay.addExtKey(k, kAt, false, false, had)
	return nil
}

// lazyCandidate reports whether the extFields object about to be read may
// stay lazy: DecodeLazy, and the code and flag read so far (JSON may name
// them later: Decode then builds the map) allow it.
func (p *jsonParser) lazyCandidate(c *RemotingCommand) bool {
	if !p.lazyOK {
		return false
	}
	if p.lay.hasKey(keyCode) && !LazyExtCode(c.Code) {
		return false
	}
	return !p.lay.hasKey(keyFlag) || c.Flag&FlagResponse == 0
}

// lazyValue records a plain string value of a lazy header as an entry
// (done). Any other value ends the lazy state: the map of the entries so
// far is built and extValue carries on as for an eager header.
func (p *jsonParser) lazyValue(c *RemotingCommand, k string, kAt int, isNew bool) (done bool, err error) {
	l := p.lay
	src := p.keep(0, len(p.b)) // the entries so far are final in b
	plain := p.i < len(p.s) && p.s[p.i] == '"'
	if !l.keepLazy(src, k, plain, isNew) {
		c.ExtFields = l.entryMap(src)
		l.lazy = false
		return false, nil
	}
	v, err := p.str()
	if err != nil {
		return true, err
	}
	l.extOrder = append(l.extOrder, extKey{off: uint32(kAt), n: uint32(len(k)), voff: uint32(p.strAt), vn: uint32(len(v))})
	return true, nil
}

func (p *jsonParser) skipNumber() error {
	start := p.i
	for p.i < len(p.s) {
		b := p.s[p.i]
		if (b < '0' || b > '9') && b != '-' && b != '+' && b != '.' && b != 'e' && b != 'E' {
			break
		}
		p.i++
	}
	if p.i == start {
		return malformed(p, "unexpected value")
	}
	return nil
}

// skipValue passes over any JSON value without recursion.
func (p *jsonParser) skipValue() error {
	depth := 0
	for {
		p.ws()
		if p.i >= len(p.s) {
			return malformed(p, "truncated value")
		}
		switch b := p.s[p.i]; {
		case b == '{' || b == '[':
			depth++
			p.i++
			continue
		case b == '}' || b == ']':
			if depth == 0 {
				return malformed(p, "unexpected "+string(b))
			}
			depth--
			p.i++
		case b == '"':
			if _, err := p.strCopy(); err != nil {
				return err
			}
		case b == ',' || b == ':':
			if depth == 0 {
				return malformed(p, "unexpected "+string(b))
			}
			p.i++
			continue
		default:
			if _, ok := p.literal(); !ok {
				if err := p.skipNumber(); err != nil {
					return err
				}
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

// str reads a quoted string as a view of b, decoding escapes in place.
func (p *jsonParser) str() (string, error) { return p.scanStr(true) }

// strCopy reads a quoted string without writing to b: the raw text stays
// intact, and a string with escapes is decoded into a new allocation.
func (p *jsonParser) strCopy() (string, error) { return p.scanStr(false) }

func (p *jsonParser) scanStr(inPlace bool) (string, error) {
	if !p.eat('"') {
		return "", malformed(p, "expected a string")
	}
	start := p.i
	p.strAt = start
	for i := start; ; i++ {
		if i = plainRun(p.s, i); i >= len(p.s) {
			break
		}
		c := strCls[p.s[i]]
		if c&clsStop == 0 {
			if c != 0 {
				p.rawClass(i)
			}
			continue
		}
		if p.s[i] == '"' {
			p.i = i + 1
			return p.keep(start, i), nil
		}
		p.i = i
		if inPlace {
			// appends write at or before p.i, over text already read
			return p.strSlow(p.b[start:i:len(p.b)])
		}
		return p.strSlow(append(make([]byte, 0, rawStringLen(p.s, start)), p.s[start:i]...))
	}
	p.i = len(p.s)
	return "", malformed(p, "unterminated string")
}

// rawClass notes which writers would have escaped the raw byte at i.
func (p *jsonParser) rawClass(i int) {
	switch c := strCls[p.s[i]]; {
	case c&clsCtl != 0:
		p.javaOK, p.goOK = false, false
	case c&clsJava != 0:
		p.javaOK = false
	case c&clsGo != 0:
		p.goOK = false
	case c&clsLead != 0:
		r, _ := utf8.DecodeRuneInString(p.s[i:])
		switch {
		case r >= 0x80 && r < 0xA0:
			p.javaOK = false
		case r == 0x2028 || r == 0x2029:
			p.javaOK, p.goOK = false, false
		}
	}
}

// rawStringLen is the length of the raw string text starting at start, up to
// its closing quote (or the end of s); the decoded string is never longer.
func rawStringLen(s string, start int) int {
	j := start
	for j < len(s) && s[j] != '"' {
		if s[j] == '\\' {
			j++
		}
		j++
	}
	return min(j, len(s)) - start
}

// strSlow continues a string that contains escapes; p.i is at a backslash or
// plain byte, buf holds what was decoded so far. buf never reallocates when
// it is the in-place window (its capacity reaches the end of the header),
// and escape reads a whole escape before appending its shorter decoding.
func (p *jsonParser) strSlow(buf []byte) (string, error) {
	for {
		// a run of plain bytes goes over in one copy (from s, the caller's
		// bytes, into buf: the two never overlap)
		j := plainRun(p.s, p.i)
		buf = append(buf, p.s[p.i:j]...)
		if p.i = j; j >= len(p.s) {
			break
		}
		switch b := p.s[j]; {
		case b == '"':
			p.i++
			// buf is never touched again, so the string may share it
			return unsafe.String(unsafe.SliceData(buf), len(buf)), nil
		case b == '\\':
			var err error
			if buf, err = p.escape(buf); err != nil {
				return "", err
			}
		default:
			p.rawClass(j)
			buf = append(buf, b)
			p.i++
		}
	}
	return "", malformed(p, "unterminated string")
}

var shortEscapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

func (p *jsonParser) escape(buf []byte) ([]byte, error) {
	if p.i+1 >= len(p.s) {
		return buf, malformed(p, "truncated escape")
	}
	e := p.s[p.i+1]
	if e == 'x' {
		return p.hexEscape(buf)
	}
	if e != 'u' {
		r := shortEscapes[e]
		if r == 0 {
			var ok bool
			if r, ok = fastjsonEscape(e); !ok {
				return buf, malformed(p, "bad escape")
			}
			p.javaOK, p.goOK = false, false
		}
		if e == '/' {
			p.javaOK, p.goOK = false, false
		}
		p.i += 2
		return append(buf, r), nil
	}
	if p.i+6 <= len(p.s) && p.s[p.i+2] == '0' && p.s[p.i+3] == '0' && (p.s[p.i+4] == '0' || p.s[p.i+4] == '1') {
		if buf, ok := p.ctlEscape(buf); ok {
			return buf, nil
		}
	}
	r, upper, lower, ok := hex4(p.s, p.i+2)
	if !ok {
		return buf, malformed(p, "bad \\u escape")
	}
	p.i += 6
	if r >= 0xD800 && r < 0xDC00 && p.i+6 <= len(p.s) && p.s[p.i] == '\\' && p.s[p.i+1] == 'u' {
		if r2, _, _, ok2 := hex4(p.s, p.i+2); ok2 && r2 >= 0xDC00 && r2 < 0xE000 {
			p.i += 6
			p.javaOK, p.goOK = false, false
			return utf8.AppendRune(buf, (r-0xD800)<<10|(r2-0xDC00)+0x10000), nil
		}
	}
	if !javaEscapes(r) || lower {
		p.javaOK = false
	}
	if !goEscapes(r) || upper {
		p.goOK = false
	}
	if r >= 0xD800 && r < 0xE000 {
		p.javaOK, p.goOK = false, false
	}
	return utf8.AppendRune(buf, r), nil
}

// ctlEscape decodes \u0000 to \u001F at p.i, the escapes both writers
// use for the separators in a message's properties (\u0001, \u0002), and
// notes the style as escape would; ok is false, nothing read, for any
// other text.
func (p *jsonParser) ctlEscape(buf []byte) ([]byte, bool) {
	d := hexDigit(p.s[p.i+5])
	if d < 0 {
		return buf, false
	}
	r := byte(d)
	if p.s[p.i+4] == '1' {
		r += 16
	}
	switch e := p.s[p.i+5]; {
	case shortEsc[r] != 0: // \b \t \n \f \r: both write the short form
		p.javaOK, p.goOK = false, false
	case e >= 'a':
		p.javaOK = false // fastjson writes upper-case hex
	case e >= 'A':
		p.goOK = false // encoding/json writes lower-case hex
	}
	p.i += 6
	return append(buf, r), true
}

// fastjsonEscape decodes the escapes fastjson reads beyond JSON's: \' \v
// \F, and \0 to \7 for the characters 0 to 7. Neither writer emits them.
func fastjsonEscape(e byte) (byte, bool) {
	switch {
	case e == '\'':
		return '\'', true
	case e == 'v':
		return '\v', true
	case e == 'F':
		return '\f', true
	case e >= '0' && e <= '7':
		return e - '0', true
	}
	return 0, false
}

// hexEscape decodes fastjson's \xHH (the character U+00HH) at p.i; its
// UTF-8 form is at most 2 bytes, shorter than the escape.
func (p *jsonParser) hexEscape(buf []byte) ([]byte, error) {
	if p.i+4 > len(p.s) {
		return buf, malformed(p, "truncated \\x escape")
	}
	var r rune
	for _, b := range []byte(p.s[p.i+2 : p.i+4]) {
		d := hexDigit(b)
		if d < 0 {
			return buf, malformed(p, "bad \\x escape")
		}
		r = r<<4 | rune(d)
	}
	p.i += 4
	p.javaOK, p.goOK = false, false
	return utf8.AppendRune(buf, r), nil
}

func hexDigit(b byte) int {
	switch {
	case b >= '0' && b <= '9':
		return int(b - '0')
	case b >= 'a' && b <= 'f':
		return int(b - 'a' + 10)
	case b >= 'A' && b <= 'F':
		return int(b - 'A' + 10)
	}
	return -1
}

// hex4 decodes four hex digits at s[i:], reporting whether upper- or
// lower-case letters were used.
func hex4(s string, i int) (r rune, upper, lower, ok bool) {
	if i+4 > len(s) {
		return 0, false, false, false
	}
	for _, b := range []byte(s[i : i+4]) {
		d := hexDigit(b)
		if d < 0 {
			return 0, false, false, false
		}
		r = r<<4 | rune(d)
		lower = lower || b >= 'a'
		upper = upper || b >= 'A' && b <= 'F'
	}
	return r, upper, lower, true
}

// javaEscapes reports whether fastjson writes r as \uXXXX.
func javaEscapes(r rune) bool {
	switch {
	case r < 0x20:
		return r != '\b' && r != '\t' && r != '\n' && r != '\f' && r != '\r'
	case r >= 0x7F && r < 0xA0:
		return true
	}
	return r == 0x2028 || r == 0x2029
}

// goEscapes reports whether encoding/json writes r as \uXXXX.
func goEscapes(r rune) bool {
	switch {
	case r < 0x20:
		return r != '\b' && r != '\t' && r != '\n' && r != '\f' && r != '\r'
	case r == '<' || r == '>' || r == '&':
		return true
	}
	return r == 0x2028 || r == 0x2029
}

// extCountHint estimates the entries of the extFields object starting at
// rest: the "key": separators followed by a value (a string, or the number
// or boolean the C++ client and ali-ons write) before the object's likely
// end. It only sizes the map, so an odd value containing "} or ":" merely
// costs a regrow.
func extCountHint(rest string) int {
	n := 0
	for i := 0; i+2 < len(rest); i++ {
		if rest[i] != '"' {
			continue
		}
		if rest[i+1] == '}' {
			break
		}
		if rest[i+1] == ':' && valueStart[rest[i+2]] {
			n++
		}
	}
	return n
}

// valueStart marks the bytes a compact JSON scalar value starts with.
var valueStart = [256]bool{'"': true, '-': true, 't': true, 'f': true,
	'0': true, '1': true, '2': true, '3': true, '4': true, '5': true, '6': true, '7': true, '8': true, '9': true}
