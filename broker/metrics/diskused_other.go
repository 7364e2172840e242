//go:build !linux

package metrics

import "syscall"

// diskUsed is File.getTotalSpace - getFreeSpace of the partition holding
// dir. The BSDs' statfs has no f_frsize; their f_bsize is the fundamental
// block size the counts are in.
func diskUsed(dir string) (used int64, ok bool) {
	var fs syscall.Statfs_t
	if dir == "" || syscall.Statfs(dir, &fs) != nil || fs.Blocks == 0 {
		return 0, false
	}
	return (int64(fs.Blocks) - int64(fs.Bfree)) * int64(fs.Bsize), true
}
