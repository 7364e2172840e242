package filter

// Compile-time operand checks of Java's ComparisonExpression factories.

// constant returns the literal value of n when n is a ConstantExpression.
func constant(n node) (value, bool) {
	switch c := n.(type) {
	case *constNode:
		return c.v, true
	case *boolConstNode:
		return c.v, true
	}
	return value{}, false
}

func isBoolean(n node) bool {
	_, ok := n.(boolNode)
	return ok
}

// asBoolean is SelectorParser.asBooleanExpression: boolean expressions pass,
// a bare property is cast, anything else is an error.
func asBoolean(n node, pos int) (node, error) {
	if isBoolean(n) {
		return n, nil
	}
	if _, ok := n.(*propNode); ok {
		return &castNode{x: n}, nil
	}
	return nil, &ParseError{Pos: pos, Msg: "expression will not result in a boolean value: " + n.String()}
}

func createEqual(l, r node, pos int) (node, error) {
	for _, x := range []node{l, r} {
		if v, ok := constant(x); ok && v.k == kindNull {
			return nil, &ParseError{Pos: pos, Msg: "'" + x.String() + "' cannot be compared."}
		}
	}
	_, lc := constant(l)
	_, rc := constant(r)
	if lc && rc && isBoolean(l) && !isBoolean(r) {
		return nil, &ParseError{Pos: pos, Msg: "'" + l.String() + "' cannot be compared with '" + r.String() + "'"}
	}
	return &eqNode{l: l, r: r}, nil
}

// checkLessThanOperand: only numbers (or non-constant, non-boolean
// expressions) can be ordered.
func checkLessThanOperand(n node, pos int) error {
	if v, ok := constant(n); ok {
		if v.k == kindInt || v.k == kindLong || v.k == kindDouble {
			return nil
		}
		return &ParseError{Pos: pos, Msg: "value '" + n.String() + "' cannot be compared."}
	}
	if isBoolean(n) {
		return &ParseError{Pos: pos, Msg: "value '" + n.String() + "' cannot be compared."}
	}
	return nil
}

func createCompare(op tokenKind, l, r node, pos int) (node, error) {
	if err := checkLessThanOperand(l, pos); err != nil {
		return nil, err
	}
	if err := checkLessThanOperand(r, pos); err != nil {
		return nil, err
	}
	return &cmpNode{op: op, l: l, r: r}, nil
}

func createBetween(v, low, high node, pos int) (node, error) {
	lv, lok := constant(low)
	hv, hok := constant(high)
	if lok && hok {
		if lv.k == kindNull || hv.k == kindNull {
			return nil, &ParseError{Pos: pos, Msg: "illegal values of between, values can not be null!"}
		}
		c, err := compareValues(hv, lv)
		if err != nil {
			return nil, &ParseError{Pos: pos, Msg: err.Error()}
		}
		if c < 0 {
			return nil, &ParseError{Pos: pos, Msg: "illegal values of between, left value(" + lv.String() +
				") must less than or equal to right value(" + hv.String() + ")"}
		}
	}
	ge, err := createCompare(tokGe, v, low, pos)
	if err != nil {
		return nil, err
	}
	le, err := createCompare(tokLe, v, high, pos)
	if err != nil {
		return nil, err
	}
	return &logicNode{and: true, l: ge, r: le}, nil
}

func createNotBetween(v, low, high node, pos int) (node, error) {
	lt, err := createCompare(tokLt, v, low, pos)
	if err != nil {
		return nil, err
	}
	gt, err := createCompare(tokGt, v, high, pos)
	if err != nil {
		return nil, err
	}
	return &logicNode{and: false, l: lt, r: gt}, nil
}
