package props

import (
	"bufio"
	"io"
)

// Print writes one "key=value" line per tagged field of each target, in
// declaration order, like MixAll.printObjectProperties (null prints empty).
// With importantOnly, only fields tagged ",important" are printed.
func Print(w io.Writer, importantOnly bool, targets ...any) {
	bw := bufio.NewWriter(w)
	for _, t := range targets {
		for _, f := range fieldsOf(t) {
			if importantOnly && !f.important {
				continue
			}
			_, _ = bw.WriteString(f.key + "=" + format(f.v) + "\n")
		}
	}
	_ = bw.Flush()
}

// Format returns the targets' settings as Java's Configuration.getAllConfigsFormatString
// body does: "key=value\n" for every declared key, in declaration order.
func Format(targets ...any) string {
	var out []byte
	for _, t := range targets {
		for _, f := range fieldsOf(t) {
			out = append(out, f.key...)
			out = append(out, '=')
			out = append(out, format(f.v)...)
			out = append(out, '\n')
		}
	}
	return string(out)
}
