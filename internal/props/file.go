package props

import (
	"fmt"
	"io"
	"os"
)

// LoadFile is the "-c file" step of BrokerStartup and NamesrvStartup: it
// reads the properties file at path, binds it onto every target (Bind) and
// writes one "warning: …" line per bad value or unknown key to warnings.
// It returns the parsed properties; an empty path loads nothing and returns
// (nil, nil).
func LoadFile(path string, warnings io.Writer, targets ...any) (map[string]string, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := Parse(f)
	if err != nil {
		return nil, err
	}
	for _, w := range Bind(m, targets...) {
		fmt.Fprintf(warnings, "warning: %s\n", w)
	}
	return m, nil
}
