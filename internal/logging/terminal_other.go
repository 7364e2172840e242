//go:build !unix

package logging

import "os"

// humanReader reports whether f is a terminal.
func humanReader(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
