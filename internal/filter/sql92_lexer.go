package filter

import "strings"

// tokenKind enumerates the SelectorParser.jj tokens.
type tokenKind uint8

const (
	tokEOF tokenKind = iota
	tokNot
	tokAnd
	tokOr
	tokBetween
	tokIn
	tokTrue
	tokFalse
	tokNull
	tokIs
	tokDecimal
	tokFloat
	tokString
	tokID
	tokEq     // =
	tokNe     // <>
	tokGt     // >
	tokGe     // >=
	tokLt     // <
	tokLe     // <=
	tokLParen // (
	tokComma  // ,
	tokRParen // )
	tokPlus   // +
	tokMinus  // -
)

var tokenNames = [...]string{
	tokEOF: "<EOF>", tokNot: "NOT", tokAnd: "AND", tokOr: "OR", tokBetween: "BETWEEN", tokIn: "IN",
	tokTrue: "TRUE", tokFalse: "FALSE", tokNull: "NULL", tokIs: "IS", tokDecimal: "<DECIMAL_LITERAL>",
	tokFloat: "<FLOATING_POINT_LITERAL>", tokString: "<STRING_LITERAL>", tokID: "<ID>",
	tokEq: "\"=\"", tokNe: "\"<>\"", tokGt: "\">\"", tokGe: "\">=\"", tokLt: "\"<\"", tokLe: "\"<=\"",
	tokLParen: "\"(\"", tokComma: "\",\"", tokRParen: "\")\"", tokPlus: "\"+\"", tokMinus: "\"-\"",
}

func (k tokenKind) String() string { return tokenNames[k] }

var keywords = map[string]tokenKind{
	"NOT": tokNot, "AND": tokAnd, "OR": tokOr, "BETWEEN": tokBetween, "IN": tokIn,
	"TRUE": tokTrue, "FALSE": tokFalse, "NULL": tokNull, "IS": tokIs,
}

type token struct {
	kind  tokenKind
	pos   int    // byte offset in the source
	image string // source text of the token
}

// lexer produces tokens on demand, like JavaCC's token manager: text after
// the last token the parser looks at is never examined.
type lexer struct {
	src string
	pos int
}

func (l *lexer) next() (token, error) {
	if err := l.skipBlank(); err != nil {
		return token{}, err
	}
	start := l.pos
	if start >= len(l.src) {
		return token{kind: tokEOF, pos: start}, nil
	}
	c := l.src[start]
	switch {
	case c == '\'':
		return l.stringLiteral()
	case isDigit(c) || (c == '.' && start+1 < len(l.src) && isDigit(l.src[start+1])):
		return l.number()
	case isIDStart(c):
		return l.ident(), nil
	}
	return l.operator()
}

// skipBlank skips white space, "--" line comments ended by a line break and
// "/* */" block comments. An unterminated comment is not a comment: its
// first character is then lexed as an operator, as JavaCC's longest match does.
func (l *lexer) skipBlank() error {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			l.pos++
		case strings.HasPrefix(l.src[l.pos:], "--"):
			end := strings.IndexAny(l.src[l.pos:], "\r\n")
			if end < 0 {
				return nil
			}
			l.pos += end + 1
		case strings.HasPrefix(l.src[l.pos:], "/*"):
			end := strings.Index(l.src[l.pos+2:], "*/")
			if end < 0 {
				return nil
			}
			l.pos += 2 + end + 2
		default:
			return nil
		}
	}
	return nil
}

func (l *lexer) operator() (token, error) {
	start := l.pos
	rest := l.src[start:]
	if len(rest) >= 2 {
		if k, ok := twoCharOps[rest[:2]]; ok {
			l.pos += 2
			return token{kind: k, pos: start, image: rest[:2]}, nil
		}
	}
	if k, ok := oneCharOps[rest[0]]; ok {
		l.pos++
		return token{kind: k, pos: start, image: rest[:1]}, nil
	}
	return token{}, &ParseError{Pos: start, Msg: "lexical error: unexpected character " + quoteChar(rest)}
}

var twoCharOps = map[string]tokenKind{"<>": tokNe, ">=": tokGe, "<=": tokLe}

var oneCharOps = map[byte]tokenKind{'=': tokEq, '>': tokGt, '<': tokLt, '(': tokLParen, ')': tokRParen,
	',': tokComma, '+': tokPlus, '-': tokMinus}

func (l *lexer) stringLiteral() (token, error) {
	start := l.pos
	i := start + 1
	for i < len(l.src) {
		if l.src[i] != '\'' {
			i++
			continue
		}
		if i+1 < len(l.src) && l.src[i+1] == '\'' {
			i += 2
			continue
		}
		l.pos = i + 1
		return token{kind: tokString, pos: start, image: l.src[start:l.pos]}, nil
	}
	return token{}, &ParseError{Pos: start, Msg: "lexical error: unterminated string literal"}
}

// number takes the longest DECIMAL_LITERAL or FLOATING_POINT_LITERAL match.
func (l *lexer) number() (token, error) {
	start := l.pos
	dec := decimalLen(l.src[start:])
	flt := floatLen(l.src[start:])
	if flt > dec {
		l.pos += flt
		return token{kind: tokFloat, pos: start, image: l.src[start:l.pos]}, nil
	}
	l.pos += dec
	return token{kind: tokDecimal, pos: start, image: l.src[start:l.pos]}, nil
}

// decimalLen matches "0" | [1-9][0-9]*[lL]?.
func decimalLen(s string) int {
	if s == "" || !isDigit(s[0]) {
		return 0
	}
	if s[0] == '0' {
		return 1
	}
	n := digitsLen(s)
	if n < len(s) && (s[n] == 'l' || s[n] == 'L') {
		n++
	}
	return n
}

// floatLen matches digits "." digits* exp? | "." digits exp? | digits exp.
func floatLen(s string) int {
	d := digitsLen(s)
	n := d
	if n < len(s) && s[n] == '.' {
		frac := digitsLen(s[n+1:])
		if d == 0 && frac == 0 {
			return 0
		}
		n += 1 + frac
		return n + exponentLen(s[n:])
	}
	if d == 0 {
		return 0
	}
	e := exponentLen(s[n:])
	if e == 0 {
		return 0
	}
	return n + e
}

func exponentLen(s string) int {
	if s == "" || (s[0] != 'e' && s[0] != 'E') {
		return 0
	}
	n := 1
	if n < len(s) && (s[n] == '+' || s[n] == '-') {
		n++
	}
	d := digitsLen(s[n:])
	if d == 0 {
		return 0
	}
	return n + d
}

func digitsLen(s string) int {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	return n
}

func (l *lexer) ident() token {
	start := l.pos
	l.pos++
	for l.pos < len(l.src) && (isIDStart(l.src[l.pos]) || isDigit(l.src[l.pos])) {
		l.pos++
	}
	image := l.src[start:l.pos]
	if k, ok := keywords[strings.ToUpper(image)]; ok {
		return token{kind: k, pos: start, image: image}
	}
	return token{kind: tokID, pos: start, image: image}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIDStart(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$'
}

func quoteChar(rest string) string {
	for _, r := range rest {
		return "'" + string(r) + "'"
	}
	return "<EOF>"
}
