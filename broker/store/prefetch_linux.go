package store

import "syscall"

// madvPopulateRead is MADV_POPULATE_READ (Linux 5.14): fault in the page
// tables of a range, reading the file where needed.
const madvPopulateRead = 0x16

// populateRead prefaults b, which must be page aligned at its start (a
// mapping's start or an offset that is a multiple of the page size).
func populateRead(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	return syscall.Madvise(b, madvPopulateRead)
}
