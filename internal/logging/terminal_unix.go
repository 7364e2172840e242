//go:build unix

package logging

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// humanReader reports whether f is read by a person: a terminal, or the
// systemd journal (JOURNAL_STREAM names f's device:inode), which stamps and
// indexes lines itself and is read with journalctl.
func humanReader(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	if fi.Mode()&os.ModeCharDevice != 0 {
		return true
	}
	dev, ino, ok := strings.Cut(os.Getenv("JOURNAL_STREAM"), ":")
	st, isStat := fi.Sys().(*syscall.Stat_t)
	if !ok || !isStat {
		return false
	}
	return dev == strconv.FormatUint(uint64(st.Dev), 10) && ino == strconv.FormatUint(st.Ino, 10)
}
