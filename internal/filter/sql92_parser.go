package filter

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ErrUnsupportedType is returned by Compile for expression types other than SQL92.
var ErrUnsupportedType = errors.New("filter: unsupported expression type")

// ParseError is a lexical, syntax or literal-check error in an SQL92 expression.
type ParseError struct {
	Pos int    // byte offset of the offending token
	Msg string // what went wrong
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("filter: invalid sql92 expression at offset %d: %s", e.Pos, e.Msg)
}

// Expression is a compiled SQL92 selector. It is immutable and safe for
// concurrent use.
type Expression struct {
	src  string
	root node
}

// Source returns the expression text it was compiled from.
func (e *Expression) Source() string { return e.src }

// String renders the compiled tree the way Java's expression toString does.
func (e *Expression) String() string { return e.root.String() }

// Match evaluates the selector over message properties. It is true only when
// the expression is TRUE; NULL (unknown) is false. A conversion failure (for
// example the property "abc" compared with 3) is returned as an error, which
// the broker treats as "not matched".
func (e *Expression) Match(props map[string]string) (bool, error) {
	return e.MatchFunc(func(name string) (string, bool) {
		v, ok := props[name]
		return v, ok
	})
}

// MatchFunc is Match over a property lookup function.
func (e *Expression) MatchFunc(get func(name string) (string, bool)) (bool, error) {
	v, err := e.root.eval(get)
	if err != nil {
		return false, err
	}
	return v.isTrue(), nil
}

// Compile compiles expr of the given type (FilterFactory): only SQL92 has a
// compiler; TAG expressions are matched by code (ParseTags).
func Compile(exprType, expr string) (*Expression, error) {
	if exprType != ExpressionTypeSQL92 {
		return nil, fmt.Errorf("%w: %q", ErrUnsupportedType, exprType)
	}
	return CompileSQL92(expr)
}

// CompileSQL92 parses and checks an SQL92 selector (SelectorParser.parse).
func CompileSQL92(expr string) (*Expression, error) {
	p := &parser{lx: lexer{src: expr}}
	root, err := p.orExpr()
	if err != nil {
		return nil, err
	}
	b, err := asBoolean(root, 0)
	if err != nil {
		return nil, err
	}
	return &Expression{src: expr, root: b}, nil
}

// parser is a recursive-descent parser with up to two tokens of lookahead,
// mirroring the JavaCC-generated SelectorParser.
type parser struct {
	lx    lexer
	la    [2]token // lookahead buffer
	nla   int      // tokens in la
	depth int      // nesting of unary operators and parentheses
}

// maxDepth bounds nesting so hostile input cannot exhaust the stack (Java
// fails such input with a StackOverflowError, reported as a parse error).
const maxDepth = 512

func (p *parser) peek(i int) (token, error) {
	for p.nla <= i {
		t, err := p.lx.next()
		if err != nil {
			return token{}, err
		}
		p.la[p.nla] = t
		p.nla++
	}
	return p.la[i], nil
}

func (p *parser) next() (token, error) {
	t, err := p.peek(0)
	if err != nil {
		return t, err
	}
	p.la[0] = p.la[1]
	p.nla--
	return t, nil
}

func (p *parser) expect(k tokenKind) (token, error) {
	t, err := p.next()
	if err != nil {
		return t, err
	}
	if t.kind != k {
		return t, unexpected(t, k.String())
	}
	return t, nil
}

func unexpected(t token, want string) *ParseError {
	got := t.kind.String()
	if t.image != "" {
		got = fmt.Sprintf("%q", t.image)
	}
	return &ParseError{Pos: t.pos, Msg: "encountered " + got + ", was expecting " + want}
}

func (p *parser) orExpr() (node, error) {
	return p.logicChain(tokOr, p.andExpr)
}

func (p *parser) andExpr() (node, error) {
	return p.logicChain(tokAnd, p.equalityExpr)
}

func (p *parser) logicChain(op tokenKind, operand func() (node, error)) (node, error) {
	left, err := operand()
	if err != nil {
		return nil, err
	}
	for {
		t, err := p.peek(0)
		if err != nil {
			return nil, err
		}
		if t.kind != op {
			return left, nil
		}
		_, _ = p.next()
		right, err := operand()
		if err != nil {
			return nil, err
		}
		l, err := asBoolean(left, t.pos)
		if err != nil {
			return nil, err
		}
		r, err := asBoolean(right, t.pos)
		if err != nil {
			return nil, err
		}
		left = &logicNode{and: op == tokAnd, l: l, r: r}
	}
}

func (p *parser) equalityExpr() (node, error) {
	left, err := p.comparisonExpr()
	if err != nil {
		return nil, err
	}
	for {
		t, err := p.peek(0)
		if err != nil {
			return nil, err
		}
		switch t.kind {
		case tokEq, tokNe:
			_, _ = p.next()
			right, err := p.comparisonExpr()
			if err != nil {
				return nil, err
			}
			if left, err = createEqual(left, right, t.pos); err != nil {
				return nil, err
			}
			if t.kind == tokNe {
				left = &notNode{x: left}
			}
		case tokIs:
			if left, err = p.isNull(left); err != nil {
				return nil, err
			}
		default:
			return left, nil
		}
	}
}

// isNull parses IS NULL / IS NOT NULL after left.
func (p *parser) isNull(left node) (node, error) {
	if _, err := p.next(); err != nil {
		return nil, err
	}
	t, err := p.next()
	if err != nil {
		return nil, err
	}
	if t.kind == tokNull {
		return &eqNode{l: left, r: nullLiteral()}, nil
	}
	if t.kind != tokNot {
		return nil, unexpected(t, "NULL or NOT")
	}
	if _, err := p.expect(tokNull); err != nil {
		return nil, err
	}
	return &notNode{x: &eqNode{l: left, r: nullLiteral()}}, nil
}

func (p *parser) comparisonExpr() (node, error) {
	left, err := p.unaryExpr()
	if err != nil {
		return nil, err
	}
	for {
		t, err := p.peek(0)
		if err != nil {
			return nil, err
		}
		switch t.kind {
		case tokGt, tokGe, tokLt, tokLe:
			_, _ = p.next()
			right, err := p.unaryExpr()
			if err != nil {
				return nil, err
			}
			if left, err = createCompare(t.kind, left, right, t.pos); err != nil {
				return nil, err
			}
		case tokBetween:
			_, _ = p.next()
			if left, err = p.between(left, false, t.pos); err != nil {
				return nil, err
			}
		case tokIn:
			_, _ = p.next()
			if left, err = p.in(left, false, t.pos); err != nil {
				return nil, err
			}
		case tokNot:
			if left, err = p.notBetweenOrIn(left, t.pos); err != nil {
				return nil, err
			}
		default:
			return left, nil
		}
	}
}

func (p *parser) notBetweenOrIn(left node, pos int) (node, error) {
	t, err := p.peek(1)
	if err != nil {
		return nil, err
	}
	switch t.kind {
	case tokBetween:
		_, _ = p.next()
		_, _ = p.next()
		return p.between(left, true, pos)
	case tokIn:
		_, _ = p.next()
		_, _ = p.next()
		return p.in(left, true, pos)
	}
	return nil, unexpected(t, "BETWEEN or IN")
}

func (p *parser) between(value node, not bool, pos int) (node, error) {
	low, err := p.unaryExpr()
	if err != nil {
		return nil, err
	}
	if _, err := p.expect(tokAnd); err != nil {
		return nil, err
	}
	high, err := p.unaryExpr()
	if err != nil {
		return nil, err
	}
	if not {
		return createNotBetween(value, low, high, pos)
	}
	return createBetween(value, low, high, pos)
}

func (p *parser) in(left node, not bool, pos int) (node, error) {
	if _, err := p.expect(tokLParen); err != nil {
		return nil, err
	}
	var list []string
	for {
		t, err := p.expect(tokString)
		if err != nil {
			return nil, err
		}
		list = append(list, decodeStringLiteral(t.image))
		sep, err := p.next()
		if err != nil {
			return nil, err
		}
		if sep.kind == tokRParen {
			break
		}
		if sep.kind != tokComma {
			return nil, unexpected(sep, "\",\" or \")\"")
		}
	}
	prop, ok := left.(*propNode)
	if !ok {
		return nil, &ParseError{Pos: pos, Msg: "expected a property for In expression, got: " + left.String()}
	}
	return &inNode{prop: prop, list: list, not: not}, nil
}

func (p *parser) unaryExpr() (node, error) {
	t, err := p.peek(0)
	if err != nil {
		return nil, err
	}
	if p.depth >= maxDepth {
		return nil, &ParseError{Pos: t.pos, Msg: "expression nested too deeply"}
	}
	p.depth++
	defer func() { p.depth-- }()
	switch t.kind {
	case tokPlus:
		_, _ = p.next()
		return p.unaryExpr()
	case tokMinus:
		_, _ = p.next()
		x, err := p.unaryExpr()
		if err != nil {
			return nil, err
		}
		return &negNode{x: x}, nil
	case tokNot:
		_, _ = p.next()
		x, err := p.unaryExpr()
		if err != nil {
			return nil, err
		}
		b, err := asBoolean(x, t.pos)
		if err != nil {
			return nil, err
		}
		return &notNode{x: b}, nil
	}
	return p.primaryExpr()
}

func (p *parser) primaryExpr() (node, error) {
	t, err := p.next()
	if err != nil {
		return nil, err
	}
	switch t.kind {
	case tokString:
		return &constNode{v: value{k: kindString, s: decodeStringLiteral(t.image)}}, nil
	case tokDecimal:
		return decimalLiteral(t)
	case tokFloat:
		return floatLiteral(t)
	case tokTrue:
		return &boolConstNode{constNode{v: trueValue}}, nil
	case tokFalse:
		return &boolConstNode{constNode{v: falseValue}}, nil
	case tokNull:
		return nullLiteral(), nil
	case tokID:
		return &propNode{name: t.image}, nil
	case tokLParen:
		x, err := p.orExpr()
		if err != nil {
			return nil, err
		}
		if _, err := p.expect(tokRParen); err != nil {
			return nil, err
		}
		return x, nil
	}
	return nil, unexpected(t, "a literal, a property or \"(\"")
}

func nullLiteral() *boolConstNode { return &boolConstNode{constNode{v: nullValue}} }

func decodeStringLiteral(image string) string {
	return strings.ReplaceAll(image[1:len(image)-1], "''", "'")
}

// decimalLiteral is ConstantExpression.createFromDecimal: Integer when it
// fits, else Long; beyond Long is an error.
func decimalLiteral(t token) (node, error) {
	text := strings.TrimRight(t.image, "lL")
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return nil, &ParseError{Pos: t.pos, Msg: "number out of range: " + t.image}
	}
	k := kindLong
	if n >= math.MinInt32 && n <= math.MaxInt32 {
		k = kindInt
	}
	return &constNode{v: value{k: k, n: n}}, nil
}

// floatLiteral is ConstantExpression.createFloat, including its rejection of
// values below Double.MIN_VALUE (so 0.0 is an error, as in Java 4.9.8).
func floatLiteral(t token) (node, error) {
	v, err := parseDoubleValue(t.image)
	if err != nil {
		return nil, &ParseError{Pos: t.pos, Msg: "bad float literal: " + t.image}
	}
	if v.f > math.MaxFloat64 {
		return nil, &ParseError{Pos: t.pos, Msg: t.image + " is greater than 1.7976931348623157E308"}
	}
	if v.f < math.SmallestNonzeroFloat64 {
		return nil, &ParseError{Pos: t.pos, Msg: t.image + " is less than 4.9E-324"}
	}
	return &constNode{v: v}, nil
}
