package codec

import (
	"strconv"
	"unicode/utf8"
)

// keyPrefixes are the top-level keys as written, quoted and with the colon.
var keyPrefixes = func() (p [numKeys]string) {
	for k, name := range keyNames {
		p[k] = `"` + name + `":`
	}
	return p
}()

// javaKeyOrder is the order fastjson writes RemotingCommand's fields in.
var javaKeyOrder = [numKeys]uint8{keyCode, keyExtFields, keyFlag, keyLanguage, keyOpaque, keyRemark, keySerializeType, keyVersion}

// appendJSONHeader writes the JSON header of c: for a new command as Java's
// fastjson does (alphabetical keys, null remark/extFields omitted, extFields
// in HashMap order); for a decoded one in the decoded key order and escaping
// style, adding keys that became non-empty at their alphabetical place.
func appendJSONHeader(dst []byte, c *RemotingCommand, lay *headerLayout) []byte {
	var ob [numKeys]uint8
	order := ob[:0]
	style := styleJava
	if lay == nil {
		for _, k := range javaKeyOrder {
			if (k != keyRemark || c.Remark != "") && (k != keyExtFields || c.hasExt()) {
				order = append(order, k)
			}
		}
	} else {
		style = lay.style
		order = append(order, lay.keys[:lay.nkeys]...)
		if c.Remark != "" && !lay.hasKey(keyRemark) {
			order = insertByRank(order, keyRemark)
		}
		if c.hasExt() && !lay.hasKey(keyExtFields) {
			order = insertByRank(order, keyExtFields)
		}
	}
	dst = append(dst, '{')
	var unknown []rawField
	if lay != nil {
		unknown = lay.unknown
	}
	for i, k := range order {
		for len(unknown) > 0 && int(unknown[0].after) <= i {
			dst = appendRaw(dst, unknown[0])
			unknown = unknown[1:]
		}
		if dst[len(dst)-1] != '{' {
			dst = append(dst, ',')
		}
		dst = appendJSONField(dst, c, lay, k, style)
	}
	for _, u := range unknown {
		dst = appendRaw(dst, u)
	}
	return append(dst, '}')
}

func insertByRank(order []uint8, k uint8) []uint8 {
	i := 0
	for i < len(order) && order[i] < k {
		i++
	}
	order = append(order, 0)
	copy(order[i+1:], order[i:])
	order[i] = k
	return order
}

func appendRaw(dst []byte, u rawField) []byte {
	if dst[len(dst)-1] != '{' {
		dst = append(dst, ',')
	}
	dst = append(dst, u.key...)
	dst = append(dst, ':')
	return append(dst, u.value...)
}

func appendJSONField(dst []byte, c *RemotingCommand, lay *headerLayout, k uint8, style escStyle) []byte {
	dst = append(dst, keyPrefixes[k]...)
	switch k {
	case keyCode:
		return strconv.AppendInt(dst, int64(c.Code), 10)
	case keyFlag:
		return strconv.AppendInt(dst, int64(c.Flag), 10)
	case keyOpaque:
		return strconv.AppendInt(dst, int64(c.Opaque), 10)
	case keyVersion:
		return strconv.AppendInt(dst, int64(c.Version), 10)
	case keyLanguage:
		name := c.Language.String()
		if lay != nil && lay.langName != "" && name == "OTHER" {
			name = lay.langName
		}
		return appendJSONString(dst, name, style)
	case keyRemark:
		return appendJSONString(dst, c.Remark, style)
	case keySerializeType:
		if lay != nil {
			return appendJSONString(dst, lay.stName, style)
		}
		return appendJSONString(dst, c.SerializeType.String(), style)
	}
	dst = append(dst, '{')
	w := appendJSONEntryJava
	if style == styleGo {
		w = appendJSONEntryGo
	}
	dst, _ = writeExt(dst, c, lay, w, false, style) // JSON entry writers never fail
	return append(dst, '}')
}

func appendJSONEntryJava(dst []byte, k, v string, null bool) ([]byte, error) {
	return appendJSONEntry(dst, k, v, null, styleJava), nil
}

func appendJSONEntryGo(dst []byte, k, v string, null bool) ([]byte, error) {
	return appendJSONEntry(dst, k, v, null, styleGo), nil
}

func appendJSONEntry(dst []byte, k, v string, null bool, style escStyle) []byte {
	if null {
		return dst // a Java null value is not written by either JSON writer
	}
	if dst[len(dst)-1] != '{' {
		dst = append(dst, ',')
	}
	dst = appendJSONString(dst, k, style)
	dst = append(dst, ':')
	return appendJSONString(dst, v, style)
}

// Escape actions per byte: 0 raw, 1 two-char escape (shortEsc), 2 \u00XX.
var (
	javaEsc, goEsc [256]uint8
	shortEsc       = [256]byte{'"': '"', '\\': '\\', '\b': 'b', '\t': 't', '\n': 'n', '\f': 'f', '\r': 'r'}
)

func init() {
	for i := 0; i < 0x20; i++ {
		javaEsc[i], goEsc[i] = 2, 2
	}
	for _, b := range []byte{'"', '\\', '\b', '\t', '\n', '\f', '\r'} {
		javaEsc[b], goEsc[b] = 1, 1
	}
	javaEsc[0x7F] = 2
	goEsc['<'], goEsc['>'], goEsc['&'] = 2, 2, 2
	javaEsc[0xC2], javaEsc[0xE2], goEsc[0xE2] = 3, 3, 3 // 3: check the rune
}

const (
	hexUpper = "0123456789ABCDEF"
	hexLower = "0123456789abcdef"
)

// appendJSONString writes s quoted with the given writer's escaping. Bytes
// that are not valid UTF-8 pass through unchanged.
func appendJSONString(dst []byte, s string, style escStyle) []byte {
	tab, hex := &javaEsc, hexUpper
	if style == styleGo {
		tab, hex = &goEsc, hexLower
	}
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		a := tab[b]
		if a == 0 {
			i++
			continue
		}
		n := 1
		var r rune = rune(b)
		if a == 3 {
			r, n = utf8.DecodeRuneInString(s[i:])
			if !(r == 0x2028 || r == 0x2029 || style == styleJava && r >= 0x80 && r < 0xA0) {
				i += n
				continue
			}
		}
		dst = append(dst, s[start:i]...)
		if a == 1 {
			dst = append(dst, '\\', shortEsc[b])
		} else {
			dst = append(dst, '\\', 'u', hex[r>>12&15], hex[r>>8&15], hex[r>>4&15], hex[r&15])
		}
		i += n
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
