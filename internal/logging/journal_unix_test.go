//go:build unix

package logging

import (
	"fmt"
	"os"
	"syscall"
)

// journalID is the JOURNAL_STREAM value systemd would set for fi.
func journalID(fi os.FileInfo) (string, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("%d:%d", st.Dev, st.Ino), true
}
