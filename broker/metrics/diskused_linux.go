package metrics

import "syscall"

// diskUsed is File.getTotalSpace - getFreeSpace of the partition holding
// dir: statvfs's blocks minus free blocks, in f_frsize units as Java
// counts them; ok is false when dir is unset or the partition reports no
// blocks.
func diskUsed(dir string) (used int64, ok bool) {
	var fs syscall.Statfs_t
	if dir == "" || syscall.Statfs(dir, &fs) != nil || fs.Blocks == 0 {
		return 0, false
	}
	return (int64(fs.Blocks) - int64(fs.Bfree)) * int64(fs.Frsize), true
}
