package store

// Host probes: physical memory (Java StoreUtil.TOTAL_PHYSICAL_MEMORY_SIZE)
// and disk usage (Java UtilAll.getDiskPartitionSpaceUsedPercent).

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// defaultPhysicalMemory is Java's fallback when the OS does not tell (24 GiB).
const defaultPhysicalMemory = 24 << 30

// totalPhysicalMemory reads MemTotal from /proc/meminfo.
func totalPhysicalMemory() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return defaultPhysicalMemory
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			if kb, err := strconv.ParseInt(fields[1], 10, 64); err == nil && kb > 0 {
				return kb * 1024
			}
		}
	}
	return defaultPhysicalMemory
}

// diskUsedFraction is the used fraction of the partition holding path,
// rounded up to whole percents, or -1 when it cannot be measured.
func diskUsedFraction(path string) float64 { return diskUsedFractionLess(path, nil) }

// diskUsedFractionLess is diskUsedFraction with the bytes that less(dev)
// says are reserved but unwritten on device dev taken out of the used
// space (nil: none).
func diskUsedFractionLess(path string, less func(dev uint64) int64) float64 {
	if path == "" {
		return -1
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return -1
	}
	bs := int64(st.Bsize)
	total := int64(st.Blocks) * bs
	if total <= 0 {
		return -1
	}
	used := total - int64(st.Bfree)*bs
	if less != nil {
		if dev, ok := deviceOf(path); ok {
			used = max(used-less(dev), 0)
		}
	}
	entire := used + int64(st.Bavail)*bs
	if entire <= 0 {
		return -1
	}
	round := int64(0)
	if used*100%entire != 0 {
		round = 1
	}
	return float64(used*100/entire+round) / 100.0
}

// deviceOf is the device number of the filesystem holding path.
func deviceOf(path string) (uint64, bool) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return 0, false
	}
	return uint64(st.Dev), true //nolint:unconvert // Dev is uint32 on some platforms
}
