package filter

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// kind is the Java class of an evaluated value.
type kind uint8

const (
	kindNull   kind = iota // null
	kindBool               // java.lang.Boolean
	kindInt                // java.lang.Integer
	kindLong               // java.lang.Long
	kindDouble             // java.lang.Double
	kindString             // java.lang.String
)

// value is one evaluated operand; n holds Boolean (0/1), Integer and Long.
type value struct {
	k kind
	n int64
	f float64
	s string
}

var (
	nullValue  = value{}
	trueValue  = value{k: kindBool, n: 1}
	falseValue = value{k: kindBool}
)

func boolValue(b bool) value {
	if b {
		return trueValue
	}
	return falseValue
}

func (v value) isTrue() bool { return v.k == kindBool && v.n == 1 }

// String formats v as Java's ConstantExpression.toString does.
func (v value) String() string {
	switch v.k {
	case kindBool:
		if v.n == 1 {
			return "TRUE"
		}
		return "FALSE"
	case kindInt, kindLong:
		return strconv.FormatInt(v.n, 10)
	case kindDouble:
		return javaDoubleString(v.f)
	case kindString:
		return "'" + strings.ReplaceAll(v.s, "'", "''") + "'"
	}
	return "NULL"
}

func javaDoubleString(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	abs := math.Abs(f)
	if abs != 0 && (abs < 1e-3 || abs >= 1e7) {
		return strings.Replace(strconv.FormatFloat(f, 'E', -1, 64), "E+", "E", 1)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// errNumberFormat is Java's NumberFormatException during a comparison.
var errNumberFormat = errors.New("filter: number format")

// compareValues is ComparisonExpression.__compare with string conversion on:
// operands of different classes are converted towards each other; pairs with
// no conversion compare as -1 (never equal). A Boolean on the left against a
// String is a ClassCastException in Java, an error here.
func compareValues(l, r value) (int, error) {
	if l.k != r.k {
		var ok bool
		var err error
		l, r, ok, err = promote(l, r)
		if err != nil || !ok {
			return -1, err
		}
	}
	return compareSame(l, r), nil
}

func promote(l, r value) (value, value, bool, error) {
	var err error
	switch l.k {
	case kindBool:
		if r.k == kindString {
			return l, r, false, fmt.Errorf("filter: cannot cast Boolean %s to String", l)
		}
		return l, r, false, nil
	case kindInt:
		switch r.k {
		case kindLong:
			l.k = kindLong
		case kindDouble:
			l = value{k: kindDouble, f: float64(l.n)}
		case kindString:
			r, err = parseIntValue(r.s, kindInt)
		default:
			return l, r, false, nil
		}
	case kindLong:
		switch r.k {
		case kindInt:
			r.k = kindLong
		case kindDouble:
			l = value{k: kindDouble, f: float64(l.n)}
		case kindString:
			r, err = parseIntValue(r.s, kindLong)
		default:
			return l, r, false, nil
		}
	case kindDouble:
		switch r.k {
		case kindInt, kindLong:
			r = value{k: kindDouble, f: float64(r.n)}
		case kindString:
			r, err = parseDoubleValue(r.s)
		default:
			return l, r, false, nil
		}
	case kindString:
		l, err = convertString(l.s, r.k)
	default:
		return l, r, false, nil
	}
	return l, r, err == nil, err
}

// convertString converts a String left operand to the right operand's class.
func convertString(s string, to kind) (value, error) {
	switch to {
	case kindBool:
		return boolValue(strings.EqualFold(s, "true") && len(s) == 4), nil
	case kindInt, kindLong:
		return parseIntValue(s, to)
	case kindDouble:
		return parseDoubleValue(s)
	}
	return value{}, fmt.Errorf("filter: cannot convert %q", s)
}

func compareSame(l, r value) int {
	switch l.k {
	case kindBool, kindInt, kindLong:
		return cmp.Compare(l.n, r.n)
	case kindDouble:
		return javaDoubleCompare(l.f, r.f)
	case kindString:
		return strings.Compare(l.s, r.s)
	}
	return 0
}

// javaDoubleCompare is Double.compare: -0.0 < 0.0 and NaN above everything, equal to itself.
func javaDoubleCompare(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	ab, bb := javaDoubleBits(a), javaDoubleBits(b)
	return cmp.Compare(ab, bb)
}

func javaDoubleBits(f float64) int64 {
	if math.IsNaN(f) {
		return 0x7ff8000000000000
	}
	return int64(math.Float64bits(f))
}

// parseIntValue is Integer.valueOf / Long.valueOf: optional sign, ASCII
// digits only, no blanks, range checked.
func parseIntValue(s string, k kind) (value, error) {
	digits := s
	if digits != "" && (digits[0] == '+' || digits[0] == '-') {
		digits = digits[1:]
	}
	if digits == "" || digitsLen(digits) != len(digits) {
		return value{}, fmt.Errorf("%w: for input string %q", errNumberFormat, s)
	}
	bits := 64
	if k == kindInt {
		bits = 32
	}
	n, err := strconv.ParseInt(s, 10, bits)
	if err != nil {
		return value{}, fmt.Errorf("%w: for input string %q", errNumberFormat, s)
	}
	return value{k: k, n: n}, nil
}

// parseDoubleValue is Double.valueOf: blanks (<= ' ') trimmed, optional sign,
// NaN, Infinity, decimal or hexadecimal forms with an optional f/F/d/D suffix.
// Overflow gives an infinity, as in Java.
func parseDoubleValue(s string) (value, error) {
	t := javaTrim(s)
	body := t
	if body != "" && (body[0] == '+' || body[0] == '-') {
		body = body[1:]
	}
	if body == "NaN" || body == "Infinity" {
		f := math.Inf(1)
		if body == "NaN" {
			f = math.NaN()
		} else if t[0] == '-' {
			f = math.Inf(-1)
		}
		return value{k: kindDouble, f: f}, nil
	}
	if n := len(body); n > 0 && strings.IndexByte("fFdD", body[n-1]) >= 0 &&
		(!isHexPrefixed(body) || hasBinaryExponent(body[:n-1])) {
		t = t[:len(t)-1]
		body = body[:n-1]
	}
	if !validJavaFloat(body) {
		return value{}, fmt.Errorf("%w: for input string %q", errNumberFormat, s)
	}
	f, err := strconv.ParseFloat(t, 64)
	var ne *strconv.NumError
	if err != nil && !(errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange)) {
		return value{}, fmt.Errorf("%w: for input string %q", errNumberFormat, s)
	}
	return value{k: kindDouble, f: f}, nil
}

func isHexPrefixed(s string) bool {
	return len(s) > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')
}

func hasBinaryExponent(s string) bool { return strings.ContainsAny(s, "pP") }

// validJavaFloat checks the unsigned decimal or hex float syntax Java accepts.
func validJavaFloat(s string) bool {
	if isHexPrefixed(s) {
		return validHexFloat(s[2:])
	}
	d := digitsLen(s)
	n := d
	frac := 0
	if n < len(s) && s[n] == '.' {
		frac = digitsLen(s[n+1:])
		n += 1 + frac
	}
	if d+frac == 0 {
		return false
	}
	if n == len(s) {
		return true
	}
	return exponentLen(s[n:]) == len(s)-n
}

func validHexFloat(s string) bool {
	h := hexLen(s)
	n := h
	frac := 0
	if n < len(s) && s[n] == '.' {
		frac = hexLen(s[n+1:])
		n += 1 + frac
	}
	if h+frac == 0 || n >= len(s) || (s[n] != 'p' && s[n] != 'P') {
		return false
	}
	n++
	if n < len(s) && (s[n] == '+' || s[n] == '-') {
		n++
	}
	d := digitsLen(s[n:])
	return d > 0 && n+d == len(s)
}

func hexLen(s string) int {
	n := 0
	for n < len(s) && (isDigit(s[n]) || (s[n]|0x20 >= 'a' && s[n]|0x20 <= 'f')) {
		n++
	}
	return n
}
