package body

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Lenient scalar types for the bodies clients write. Apache reads them with
// fastjson, which converts between JSON types where the Java field type asks
// for it; clients other than the Java one rely on that:
//
//   - a String field takes a string, or the text of a number or boolean;
//   - an int/long field takes a number, a string holding one ("12",
//     "1,024", "3.00"), a boolean (1/0), and "" or null as null. A number
//     with a non-zero fraction is refused: fastjson would cut it off, but
//     no client writes one and a fraction in a count or offset is a bug
//     worth reporting;
//   - a boolean field takes true/false, the strings "true"/"false" (any
//     case), "1"/"0", "Y"/"N", "T"/"F", and a number (only 1 is true);
//   - an enum field takes its name (ASCII case ignored; an unknown name is
//     null) or its ordinal, which the C++ client writes (an ordinal out of
//     range fails the body, as in fastjson).
//
// Each type decodes one JSON value already normalized by Normalize; it is a
// json.Unmarshaler so json-iterator calls it for the field. Nulls leave the
// Go zero value, which stands for Java's null or primitive default.

// errLenient wraps every conversion failure.
var errLenient = errors.New("body: value does not convert")

// lstr is a Java String field.
type lstr string

// lint32 is a Java int/Integer field.
type lint32 int32

// lint64 is a Java long/Long field.
type lint64 int64

// lbool is a Java boolean/Boolean field.
type lbool bool

// UnmarshalJSON implements json.Unmarshaler.
func (s *lstr) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) == 0:
		return fmt.Errorf("%w: empty value", errLenient)
	case b[0] == '"':
		v, err := jsonString(b)
		*s = lstr(v)
		return err
	case string(b) == "null":
		*s = ""
	default:
		// Numbers, booleans, and objects or arrays (fastjson's toString of
		// the parsed value is their compact JSON text, which b already is).
		*s = lstr(b)
	}
	return nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (n *lint32) UnmarshalJSON(b []byte) error {
	v, err := lenientInt(b, 32)
	*n = lint32(v)
	return err
}

// UnmarshalJSON implements json.Unmarshaler.
func (n *lint64) UnmarshalJSON(b []byte) error {
	v, err := lenientInt(b, 64)
	*n = lint64(v)
	return err
}

// UnmarshalJSON implements json.Unmarshaler.
func (v *lbool) UnmarshalJSON(b []byte) error {
	var s string
	switch {
	case len(b) == 0:
		return fmt.Errorf("%w: empty value", errLenient)
	case b[0] == '"':
		var err error
		if s, err = jsonString(b); err != nil {
			return err
		}
	case b[0] == '-' || (b[0] >= '0' && b[0] <= '9'):
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil {
			return fmt.Errorf("%w: boolean %s", errLenient, b)
		}
		*v = int64(f) == 1
		return nil
	default:
		s = string(b)
	}
	switch {
	case s == "" || s == "null" || s == "NULL":
		*v = false
	case strings.EqualFold(s, "true") || s == "1" || strings.EqualFold(s, "y") || s == "T":
		*v = true
	case strings.EqualFold(s, "false") || s == "0" || strings.EqualFold(s, "f") || s == "N":
		*v = false
	default:
		return fmt.Errorf("%w: boolean %q", errLenient, s)
	}
	return nil
}

// lenientInt reads a JSON number, a string holding one, a boolean or null
// into a signed integer of the given size.
func lenientInt(b []byte, bits int) (int64, error) {
	if len(b) == 0 {
		return 0, fmt.Errorf("%w: empty value", errLenient)
	}
	switch b[0] {
	case '"':
		s, err := jsonString(b)
		if err != nil {
			return 0, err
		}
		return parseJavaIntText(s, bits)
	case 't':
		return 1, nil
	case 'f', 'n':
		return 0, nil
	}
	if n, err := strconv.ParseInt(string(b), 10, bits); err == nil {
		return n, nil
	}
	return integralFloat(string(b), bits)
}

// parseJavaIntText is fastjson's castToInt/castToLong of a string: empty and
// "null" are null, grouping commas are dropped, and so is a fraction of
// zeros ("3.00").
func parseJavaIntText(s string, bits int) (int64, error) {
	if s == "" || s == "null" || s == "NULL" {
		return 0, nil
	}
	s = strings.ReplaceAll(s, ",", "")
	if i := strings.LastIndexByte(s, '.'); i >= 0 && strings.Trim(s[i+1:], "0") == "" {
		s = s[:i]
	}
	n, err := strconv.ParseInt(s, 10, bits)
	if err != nil {
		return 0, fmt.Errorf("%w: integer %q", errLenient, s)
	}
	return n, nil
}

// integralFloat reads a JSON number written with a fraction or exponent
// whose value is a whole number (1.0, 1e3).
func integralFloat(s string, bits int) (int64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || f != math.Trunc(f) {
		return 0, fmt.Errorf("%w: integer %s", errLenient, s)
	}
	limit := math.Ldexp(1, bits-1)
	if f >= limit || f < -limit {
		return 0, fmt.Errorf("%w: integer %s out of range", errLenient, s)
	}
	return int64(f), nil
}

// jsonString unquotes one normalized JSON string; strings without escapes
// (nearly all) are sliced without a decoder.
func jsonString(b []byte) (string, error) {
	if len(b) < 2 || b[len(b)-1] != '"' {
		return "", fmt.Errorf("%w: bad string %s", errLenient, b)
	}
	if bytes.IndexByte(b, '\\') < 0 {
		return string(b[1 : len(b)-1]), nil
	}
	var s string
	if err := jsonAPI.Unmarshal(b, &s); err != nil {
		return "", fmt.Errorf("%w: %w", errLenient, err)
	}
	return s, nil
}

// enumNames lists a Java enum's constants in ordinal order.
type enumNames interface{ names() []string }

// lenum is a Java enum field holding the constant's name; N names the enum.
type lenum[N enumNames] string

// UnmarshalJSON implements json.Unmarshaler.
func (e *lenum[N]) UnmarshalJSON(b []byte) error {
	var zero N
	names := zero.names()
	if len(b) == 0 {
		return fmt.Errorf("%w: empty value", errLenient)
	}
	switch c := b[0]; {
	case c == '"':
		s, err := jsonString(b)
		if err != nil {
			return err
		}
		*e = lenum[N](enumByName(names, s))
	case c == 'n':
		*e = ""
	case c == '-' || (c >= '0' && c <= '9'):
		i, err := strconv.ParseInt(string(b), 10, 32)
		if err != nil || i < 0 || int(i) >= len(names) {
			return fmt.Errorf("%w: enum %s has no ordinal %s", errLenient, names[0], b)
		}
		*e = lenum[N](names[i])
	default:
		return fmt.Errorf("%w: enum value %s", errLenient, b)
	}
	return nil
}

// enumByName finds name among names ignoring ASCII case; "" when absent
// (fastjson answers null for an unknown name).
func enumByName(names []string, name string) string {
	for _, n := range names {
		if n == name {
			return n
		}
	}
	for _, n := range names {
		if asciiEqualFold(n, name) {
			return n
		}
	}
	return ""
}

func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// The heartbeat enums, constants in Java ordinal order (4.9.8).
type (
	consumeTypeEnum      struct{}
	messageModelEnum     struct{}
	consumeFromWhereEnum struct{}
)

var (
	consumeTypeNames      = []string{ConsumeActively, ConsumePassively}
	messageModelNames     = []string{Broadcasting, Clustering}
	consumeFromWhereNames = []string{ConsumeFromLastOffset, ConsumeFromLastOffsetAndFromMinWhenBootFirst,
		ConsumeFromMinOffset, ConsumeFromMaxOffset, ConsumeFromFirstOffset, ConsumeFromTimestamp}
)

func (consumeTypeEnum) names() []string      { return consumeTypeNames }
func (messageModelEnum) names() []string     { return messageModelNames }
func (consumeFromWhereEnum) names() []string { return consumeFromWhereNames }

// strs converts a lenient string list.
func strs(in []lstr) []string {
	if in == nil {
		return nil
	}
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = string(s)
	}
	return out
}
