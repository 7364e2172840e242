package configfile

import "fmt"

// container kinds tracked by Pretty.
const (
	kindObject    = iota // bean or string-keyed map: newline before each entry
	kindNonString        // map with unquoted integer or object keys: no newline before entries
	kindArray            // list: newline before each element
)

type frame struct {
	kind     int
	nonEmpty bool
}

// Pretty re-lays compact fastjson output as fastjson's PrettyFormat does
// (SerializerFeature.PrettyFormat, one tab per level). Non-empty containers
// close on their own line; maps whose keys are not strings get no newline
// before their entries, which gives consumerOffset.json its "{0:42,1:17\n\t\t}"
// look. It fails on unbalanced input instead of producing garbage.
func Pretty(compact []byte) ([]byte, error) {
	out := make([]byte, 0, len(compact)*2)
	var stack []frame
	for i := 0; i < len(compact); i++ {
		c := compact[i]
		switch c {
		case '"':
			end, err := stringEnd(compact, i)
			if err != nil {
				return nil, err
			}
			out = append(out, compact[i:end]...)
			i = end - 1
		case '{', '[':
			f := frame{kind: kindArray}
			if c == '{' {
				f.kind = kindObject
				if i+1 < len(compact) && compact[i+1] != '"' {
					f.kind = kindNonString
				}
			}
			f.nonEmpty = i+1 < len(compact) && compact[i+1] != '}' && compact[i+1] != ']'
			stack = append(stack, f)
			out = append(out, c)
			if f.nonEmpty && f.kind != kindNonString {
				out = newline(out, len(stack))
			}
		case '}', ']':
			if len(stack) == 0 {
				return nil, fmt.Errorf("configfile: unbalanced %q at %d", c, i)
			}
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if f.nonEmpty {
				out = newline(out, len(stack))
			}
			out = append(out, c)
		case ',':
			out = append(out, c)
			if len(stack) > 0 && stack[len(stack)-1].kind != kindNonString {
				out = newline(out, len(stack))
			}
		default:
			out = append(out, c)
		}
	}
	if len(stack) != 0 {
		return nil, fmt.Errorf("configfile: %d unclosed containers", len(stack))
	}
	return out, nil
}

func newline(out []byte, depth int) []byte {
	out = append(out, '\n')
	for j := 0; j < depth; j++ {
		out = append(out, '\t')
	}
	return out
}

// stringEnd returns the index just past the closing quote of the string at i.
func stringEnd(b []byte, i int) (int, error) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, fmt.Errorf("configfile: unterminated string at %d", i)
}
