package props

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ErrMalformedEscape is returned for a \u escape that is not followed by four
// hex digits (java.util.Properties throws IllegalArgumentException).
var ErrMalformedEscape = errors.New("props: malformed \\uxxxx encoding")

// Parse reads java.util.Properties text. Later duplicates win, as in Java.
func Parse(r io.Reader) (map[string]string, error) {
	data, err := io.ReadAll(bufio.NewReader(r))
	if err != nil {
		return nil, fmt.Errorf("props: read: %w", err)
	}
	return ParseString(string(data))
}

// ParseString is Parse on a string (MixAll.string2Properties).
func ParseString(s string) (map[string]string, error) {
	out := make(map[string]string)
	lines := naturalLines(s)
	for i := 0; i < len(lines); i++ {
		line := trimLeadingBlanks(lines[i])
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		// Join continuation lines: an odd number of trailing backslashes.
		for endsWithContinuation(line) && i+1 < len(lines) {
			i++
			line = line[:len(line)-1] + trimLeadingBlanks(lines[i])
		}
		if endsWithContinuation(line) {
			line = line[:len(line)-1]
		}
		k, v := splitKeyValue(line)
		key, err := unescape(k)
		if err != nil {
			return nil, err
		}
		val, err := unescape(v)
		if err != nil {
			return nil, err
		}
		out[key] = val
	}
	return out, nil
}

// naturalLines splits on \n, \r and \r\n.
func naturalLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.Split(s, "\n")
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\f' }

func trimLeadingBlanks(s string) string {
	i := 0
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	return s[i:]
}

func endsWithContinuation(s string) bool {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// splitKeyValue finds the first unescaped '=', ':' or blank; the value starts
// after blanks, at most one '=' or ':', and blanks again. The value keeps its
// trailing blanks.
func splitKeyValue(line string) (string, string) {
	keyEnd, valStart := len(line), len(line)
	hasSep := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c == '\\' {
			i++
			continue
		}
		if c == '=' || c == ':' {
			keyEnd, valStart, hasSep = i, i+1, true
			break
		}
		if isBlank(c) {
			keyEnd, valStart = i, i+1
			break
		}
	}
	for valStart < len(line) && isBlank(line[valStart]) {
		valStart++
	}
	if !hasSep && valStart < len(line) && (line[valStart] == '=' || line[valStart] == ':') {
		valStart++
		for valStart < len(line) && isBlank(line[valStart]) {
			valStart++
		}
	}
	return line[:keyEnd], line[valStart:]
}

func unescape(s string) (string, error) {
	if strings.IndexByte(s, '\\') < 0 {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			r, ok := hex4(s[i+1:])
			if !ok {
				return "", ErrMalformedEscape
			}
			b.WriteRune(r)
			i += 4
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}

func hex4(s string) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for i := 0; i < 4; i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
