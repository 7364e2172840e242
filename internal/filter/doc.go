// Package filter holds the broker's message-filter languages, pure and
// allocation-light: TAG expressions ("TagA || TagB", "*") and the SQL92
// property selector of Apache RocketMQ 4.9.8 (filter module, SelectorParser.jj).
//
// TAG expressions split on "||", trim each tag (Java String.trim) and hash it
// with Java's String.hashCode; the consume queue stores the same hash as the
// message's tagsCode, so a pull matches by comparing int32 codes:
//
//	"TagA || TagB"  ->  tags [TagA TagB], codes [2598919 2598920]
//	"*" or ""       ->  subscribe all (SubAll)
//
// The SQL92 dialect is the JMS-selector subset Java 4.9.8 accepts, nothing
// more (no LIKE, no arithmetic, no CONTAINS/STARTSWITH, which came in 5.x):
//
//	expr    := or
//	or      := and { OR and }
//	and     := eq { AND eq }
//	eq      := cmp { ("=" | "<>") cmp | IS NULL | IS NOT NULL }
//	cmp     := unary { (">"|">="|"<"|"<=") unary
//	                 | [NOT] BETWEEN unary AND unary
//	                 | [NOT] IN "(" 'str' { "," 'str' } ")" }
//	unary   := "+" unary | "-" unary | NOT unary | primary
//	primary := 'string' | 123 | 123L | 1.5 | 1E3 | TRUE | FALSE | NULL | ident | "(" or ")"
//
// Invariants mirrored from Java, because clients can observe them:
//   - keywords are case-insensitive; NOT binds tighter than comparisons
//     ("NOT a = 1" is "(NOT a) = 1");
//   - parsing stops after the expression: trailing tokens that lex are ignored;
//   - literal checks happen at compile time (NULL in "=", non-numeric
//     constants in "<", reversed constant BETWEEN bounds, 0.0 as a float
//     literal, integers beyond int64 are errors);
//   - message properties are strings; comparing one with a number converts it
//     (Integer.valueOf, Long.valueOf, Double.valueOf), and a failed conversion
//     is an evaluation error, which the broker treats as "no match";
//   - a missing property is NULL, and NULL makes every comparison unknown, so
//     the message does not match (only IS NULL is true).
//
// Usage:
//
//	e, err := filter.CompileSQL92("a > 5 AND color IN ('red','blue')")
//	ok, err := e.Match(map[string]string{"a": "7", "color": "red"}) // true, nil
package filter
