package filter

import (
	"errors"
	"strings"
	"testing"
)

var sqlProps = map[string]string{
	"a": "5", "b": "abc", "c": "3.5", "t": "true", "big": "3000000000", "neg": "-2",
	"q": "it's", "qq": "''x''", "e": "3.1415E10", "pi": "3.14", "pi2": "3.14", "n": "NaN", "f": "1.5f", "sp": " 1.5 ", "spi": " 5", "zero": "0", "mz": "-0.0",
}

// TestSQL92Evaluate covers the Java 4.9.8 evaluation semantics: string
// properties converted towards numeric literals, NULL for missing
// properties, three-valued logic, and conversion failures as errors.
func TestSQL92Evaluate(t *testing.T) {
	cases := []struct {
		expr    string
		want    bool
		wantErr bool
	}{
		{"a = 5", true, false},
		{"a = '5'", true, false},
		{"a = 5.0", true, false},
		{"a = 5L", true, false},
		{"a = 5E0", true, false},
		{"5 = a", true, false},
		{"5.0 = a", true, false},
		{"a > 3", true, false},
		{"a > 3.5", true, false},
		{"a >= 5", true, false},
		{"a < 5", false, false},
		{"a <= 5", true, false},
		{"a <> 5", false, false},
		{"a <> 6", true, false},
		{"c > 3", false, true}, // Integer.valueOf("3.5") fails
		{"c > 3.0", true, false},
		{"c > a", false, false}, // two strings compare as doubles
		{"a > b", false, true},
		{"b = 1", false, true},
		{"b = 'abc'", true, false},
		{"b <> 'abc'", false, false},
		{"b <> 'x'", true, false},
		{"q = 'it''s'", true, false},
		{"qq = '''''x'''''", true, false},
		{"e > 3.1E10", true, false},
		{"pi = pi2", true, false}, // two strings: equal text
		{"pi <> c", true, false},
		{"pi BETWEEN b AND c", false, true}, // "abc" is no number
		{"pi > 3.14", false, false},
		{"missing = 1", false, false},
		{"missing <> 1", false, false},
		{"missing > 1", false, false},
		{"NOT (missing = 1)", false, false},
		{"missing IS NULL", true, false},
		{"a IS NULL", false, false},
		{"a IS NOT NULL", true, false},
		{"missing IS NOT NULL", false, false},
		{"missing = 1 OR a = 5", true, false},
		{"a = 5 OR missing = 1", true, false},
		{"missing = 1 AND a = 5", false, false},
		{"NOT (a = 5 AND missing = 1)", false, false},
		{"NOT (a = 6 AND missing = 1)", true, false},
		{"a BETWEEN 1 AND 10", true, false},
		{"a BETWEEN 5 AND 5", true, false},
		{"a BETWEEN 6 AND 10", false, false},
		{"a NOT BETWEEN 6 AND 10", true, false},
		{"missing NOT BETWEEN 1 AND 2", false, false},
		{"b IN ('abc', 'x')", true, false},
		{"b IN ('x', 'y', 'z', 'w', 'abc')", true, false},
		{"b NOT IN ('abc')", false, false},
		{"b NOT IN ('x')", true, false},
		{"missing IN ('a')", false, false},
		{"missing NOT IN ('a')", false, false},
		{"(b) IN ('abc')", true, false},
		{"t = TRUE", true, false},
		{"t = FALSE", false, false},
		{"TRUE = t", false, true}, // Java: ClassCastException
		{"t", false, false},       // a String is never Boolean.TRUE
		{"NOT t", true, false},
		{"missing", false, false},
		{"NOT missing", false, false},
		{"TRUE", true, false},
		{"FALSE", false, false},
		{"NULL", false, false},
		{"NOT a = 5", false, false}, // (NOT a) = 5
		{"1 = TRUE", false, false},
		{"big > 2147483647", false, true}, // Integer.valueOf overflows
		{"big > 2147483648", true, false},
		{"neg < -1", true, false},
		{"neg = -2", true, false},
		{"neg < +1", true, false},
		{"a > -b", false, false},
		{"n > 1.0", true, false}, // NaN sorts above everything
		{"n = n", true, false},
		{"f = 1.5", true, false},
		{"sp = 1.5", true, false},
		{"spi = 5", false, true},
		{"spi = 5.0", true, false},
		{"mz = 0", false, true},
		{"mz < zero", true, false}, // -0.0 < 0.0 under Double.compare
		{"a = 5 and b = 'abc'", true, false},
		{"A = 5", false, false}, // property names are case-sensitive
		{"a = 5 -- comment\n AND b = 'abc'", true, false},
		{"/* x */ a = 5", true, false},
		{"a = 5 b c", true, false},   // trailing tokens are never parsed
		{"a LIKE 'x'", false, false}, // LIKE is an identifier: only "a" is parsed
		{"(a = 5) = (b = 'abc')", true, false},
		{"a = 5 OR b = 1", true, false},   // OR stops on TRUE
		{"a = 6 AND b = 1", false, false}, // AND stops on FALSE
		{"a = 6 OR b = 1", false, true},
	}
	for _, c := range cases {
		e, err := CompileSQL92(c.expr)
		if err != nil {
			t.Errorf("CompileSQL92(%q): %v", c.expr, err)
			continue
		}
		got, err := e.Match(sqlProps)
		if (err != nil) != c.wantErr || got != c.want {
			t.Errorf("%q: got (%v, %v), want (%v, err=%v)", c.expr, got, err, c.want, c.wantErr)
		}
	}
}

// TestSQL92CompileErrors lists expressions Java rejects at subscribe time.
func TestSQL92CompileErrors(t *testing.T) {
	bad := []string{
		"", "   ", "1", "'x'", "-a", "a =", "a = NULL", "NULL = a", "a <> NULL",
		"a > 'x'", "a > TRUE", "a < NULL", "(a = 1) > 2", "TRUE = 1", "TRUE = 'true'",
		"a BETWEEN 10 AND 1", "a BETWEEN 'a' AND 'b'", "a BETWEEN NULL AND 1", "a BETWEEN 1 OR 2",
		"a IN ()", "a IN (1)", "1 IN ('a')", "a IN ('x'", "a NOT 5", "a IS 5", "a IS NOT 5",
		"a = 0.0", "a = 1e400", "a = 9223372036854775808", "a = 'unterminated", "a = #", "a = 5 #",
		"(a = 5", "NOT 1", "a AND 1", "1 OR a", "a = .",
		strings.Repeat("(", 5000) + "a",
	}
	for _, s := range bad {
		if e, err := CompileSQL92(s); err == nil {
			t.Errorf("CompileSQL92(%q) = %v, want error", s, e)
		} else {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Errorf("CompileSQL92(%q): error %T is not a *ParseError", s, err)
			}
		}
	}
}

func TestSQL92CompileAccepts(t *testing.T) {
	good := []string{
		"a", "TRUE", "NULL", "1 = TRUE", "a = 5 b #", "a BETWEEN -5 AND -10", "a > 1.5E3", "a > .5",
		"a > 5.", "a > 5.e1", "a = 5l", "a = 5 -- no newline", "x$_1 = 'y'", "a IS NULL AND b IS NOT NULL", "nOt (a iS nUlL)",
		"a = -2147483648", "a = 9223372036854775807", "a = 'multi\nline'",
		"(a > 10 AND a < 100) OR (b IS NOT NULL AND b=TRUE)",
	}
	for _, s := range good {
		if _, err := CompileSQL92(s); err != nil {
			t.Errorf("CompileSQL92(%q): %v", s, err)
		}
	}
}

func TestSQL92Compile(t *testing.T) {
	if _, err := Compile("TAG", "a = 1"); !errors.Is(err, ErrUnsupportedType) {
		t.Fatalf("Compile(TAG) err = %v", err)
	}
	e, err := Compile(ExpressionTypeSQL92, "a = 1")
	if err != nil {
		t.Fatal(err)
	}
	if e.Source() != "a = 1" || e.String() != "(a == 1)" {
		t.Fatalf("Source/String = %q / %q", e.Source(), e.String())
	}
	ok, err := e.MatchFunc(func(string) (string, bool) { return "1", true })
	if !ok || err != nil {
		t.Fatalf("MatchFunc = %v, %v", ok, err)
	}
}

// TestSQL92Literals checks literal typing: Integer when it fits, Long beyond,
// wrap-around negation like Java's Integer.
func TestSQL92Literals(t *testing.T) {
	props := map[string]string{"x": "-2147483648", "y": "2147483648"}
	for _, s := range []string{"x = -2147483648", "y = 2147483648", "y > 2147483646.5"} {
		e, err := CompileSQL92(s)
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := e.Match(props); !ok || err != nil {
			t.Errorf("%q: %v, %v", s, ok, err)
		}
	}
	// 2147483647L is an Integer literal (the suffix is dropped), so the
	// property must parse as an int: Java fails this comparison.
	e, err := CompileSQL92("y > 2147483647L")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := e.Match(props); ok || !errors.Is(err, errNumberFormat) {
		t.Errorf("y > 2147483647L: %v, %v; want number format error", ok, err)
	}
}

func FuzzSQL92Parse(f *testing.F) {
	for _, s := range []string{
		"a = 5", "a BETWEEN 1 AND 2", "b IN ('x','y')", "NOT (a IS NULL)", "a > 1.5E3 OR c <> 'it''s'",
		"/* c */ a -- x\n= 1", "((a))", "a = 0.0", "-+-a > .5",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := CompileSQL92(s)
		if err != nil {
			return
		}
		_, _ = e.Match(sqlProps)
		_ = e.String()
	})
}
