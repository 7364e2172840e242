package filter

import (
	"fmt"
	"strings"
)

// lookupFunc returns a message property; ok is false when it is absent (NULL).
type lookupFunc func(name string) (string, bool)

// node is one compiled expression (Java's Expression class tree).
type node interface {
	eval(get lookupFunc) (value, error)
	String() string
}

// boolNode marks Java's BooleanExpression implementations.
type boolNode interface {
	node
	isBoolean()
}

// constNode is ConstantExpression (string and number literals).
type constNode struct{ v value }

func (c *constNode) eval(lookupFunc) (value, error) { return c.v, nil }
func (c *constNode) String() string                 { return c.v.String() }

// boolConstNode is a TRUE/FALSE/NULL literal (BooleanConstantExpression).
type boolConstNode struct{ constNode }

func (*boolConstNode) isBoolean() {}

type propNode struct{ name string }

func (p *propNode) eval(get lookupFunc) (value, error) {
	if s, ok := get(p.name); ok {
		return value{k: kindString, s: s}, nil
	}
	return nullValue, nil
}
func (p *propNode) String() string { return p.name }

// negNode is unary minus: numbers negate (with Java's wrap-around), anything else is NULL.
type negNode struct{ x node }

func (n *negNode) eval(get lookupFunc) (value, error) {
	v, err := n.x.eval(get)
	if err != nil {
		return nullValue, err
	}
	switch v.k {
	case kindInt:
		v.n = int64(-int32(v.n))
	case kindLong:
		v.n = -v.n
	case kindDouble:
		v.f = -v.f
	default:
		return nullValue, nil
	}
	return v, nil
}
func (n *negNode) String() string { return "(- " + n.x.String() + ")" }

type notNode struct{ x node }

func (*notNode) isBoolean() {}
func (n *notNode) eval(get lookupFunc) (value, error) {
	v, err := n.x.eval(get)
	if err != nil || v.k != kindBool {
		return nullValue, err
	}
	return boolValue(v.n == 0), nil
}
func (n *notNode) String() string { return "(NOT " + n.x.String() + ")" }

// castNode is the boolean cast of a bare property: a present property is a
// String, never a Boolean, so it is FALSE; an absent one is NULL.
type castNode struct{ x node }

func (*castNode) isBoolean() {}
func (n *castNode) eval(get lookupFunc) (value, error) {
	v, err := n.x.eval(get)
	if err != nil || v.k == kindNull {
		return nullValue, err
	}
	return boolValue(v.isTrue()), nil
}
func (n *castNode) String() string { return n.x.String() }

// logicNode is AND / OR with SQL three-valued logic.
type logicNode struct {
	and  bool
	l, r node
}

func (*logicNode) isBoolean() {}
func (n *logicNode) eval(get lookupFunc) (value, error) {
	lv, err := n.l.eval(get)
	if err != nil {
		return nullValue, err
	}
	decisive := boolValue(!n.and) // OR stops on TRUE, AND on FALSE
	if lv.k == kindBool && lv.n == decisive.n {
		return decisive, nil
	}
	rv, err := n.r.eval(get)
	if err != nil {
		return nullValue, err
	}
	if rv.k == kindBool && rv.n == decisive.n {
		return decisive, nil
	}
	if lv.k != kindBool || rv.k != kindBool {
		return nullValue, nil
	}
	return boolValue(n.and), nil
}
func (n *logicNode) String() string {
	op := "||"
	if n.and {
		op = "&&"
	}
	return "(" + n.l.String() + " " + op + " " + n.r.String() + ")"
}

// eqNode is the equality comparison (also IS NULL against the NULL literal).
type eqNode struct{ l, r node }

func (*eqNode) isBoolean() {}
func (n *eqNode) eval(get lookupFunc) (value, error) {
	lv, err := n.l.eval(get)
	if err != nil {
		return nullValue, err
	}
	rv, err := n.r.eval(get)
	if err != nil {
		return nullValue, err
	}
	if (lv.k == kindNull) != (rv.k == kindNull) {
		if lv.k == kindNull {
			return nullValue, nil
		}
		return falseValue, nil
	}
	if lv.k == kindNull {
		return trueValue, nil
	}
	c, err := compareValues(lv, rv)
	if err != nil {
		return nullValue, err
	}
	return boolValue(c == 0), nil
}
func (n *eqNode) String() string { return "(" + n.l.String() + " == " + n.r.String() + ")" }

// cmpNode is > >= < <=. Two strings compare as doubles.
type cmpNode struct {
	op   tokenKind
	l, r node
}

func (*cmpNode) isBoolean() {}
func (n *cmpNode) eval(get lookupFunc) (value, error) {
	lv, err := n.l.eval(get)
	if err != nil || lv.k == kindNull {
		return nullValue, err
	}
	rv, err := n.r.eval(get)
	if err != nil || rv.k == kindNull {
		return nullValue, err
	}
	if lv.k == kindString && rv.k == kindString {
		ld, lerr := parseDoubleValue(lv.s)
		rd, rerr := parseDoubleValue(rv.s)
		if lerr != nil || rerr != nil {
			return nullValue, fmt.Errorf("filter: it's illegal to compare string by '>=', '>', '<', '<='. lv=%s, rv=%s", lv.s, rv.s)
		}
		lv, rv = ld, rd
	}
	c, err := compareValues(lv, rv)
	if err != nil {
		return nullValue, err
	}
	switch n.op {
	case tokGt:
		return boolValue(c > 0), nil
	case tokGe:
		return boolValue(c >= 0), nil
	case tokLt:
		return boolValue(c < 0), nil
	}
	return boolValue(c <= 0), nil
}
func (n *cmpNode) String() string {
	return "(" + n.l.String() + " " + strings.Trim(n.op.String(), "\"") + " " + n.r.String() + ")"
}

// inNode is [NOT] IN over string literals; only a String property can match.
type inNode struct {
	prop *propNode
	list []string
	not  bool
}

func (*inNode) isBoolean() {}
func (n *inNode) eval(get lookupFunc) (value, error) {
	v, err := n.prop.eval(get)
	if err != nil || v.k != kindString {
		return nullValue, err
	}
	return boolValue(containsString(n.list, v.s) != n.not), nil
}
func (n *inNode) String() string {
	var b strings.Builder
	b.WriteString(n.prop.name)
	if n.not {
		b.WriteString(" NOT IN ( ")
	} else {
		b.WriteString(" IN ( ")
	}
	for i, s := range n.list {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s)
	}
	b.WriteString(" )")
	return b.String()
}
