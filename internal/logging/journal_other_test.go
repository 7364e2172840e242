//go:build !unix

package logging

import "os"

func journalID(os.FileInfo) (string, bool) { return "", false }
