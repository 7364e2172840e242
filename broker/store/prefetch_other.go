//go:build !linux

package store

// populateRead is a no-op where MADV_POPULATE_READ does not exist.
func populateRead([]byte) error { return nil }
