package props

import "strings"

// SplitDefines takes Java-style system property options ("-Dkey=value";
// "-Dkey" alone sets an empty value) out of args, as a JVM would consume
// them before main, and returns the remaining arguments for the flag
// parser. Arguments after "--" are left alone.
func SplitDefines(args []string) ([]string, map[string]string) {
	rest := make([]string, 0, len(args))
	defs := make(map[string]string)
	for i, a := range args {
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		if !strings.HasPrefix(a, "-D") || len(a) == 2 {
			rest = append(rest, a)
			continue
		}
		k, v, _ := strings.Cut(a[2:], "=")
		defs[k] = v
	}
	return rest, defs
}
