package commitlog

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Config is the CommitLog's slice of MessageStoreConfig (package store builds
// it; commitlog cannot import store, which imports commitlog).
type Config struct {
	Dir                   string        // storePathCommitLog
	FileSize              int           // mappedFileSizeCommitLog
	MaxMessageSize        int           // maxMessageSize
	SyncFlush             bool          // flushDiskType == SYNC_FLUSH
	SyncMaster            bool          // brokerRole == SYNC_MASTER
	FlushInterval         time.Duration // flushIntervalCommitLog
	FlushTimed            bool          // flushCommitLogTimed: flush on the interval only, ignore wakeups
	FlushLeastPages       int           // flushCommitLogLeastPages
	FlushThoroughInterval time.Duration // flushCommitLogThoroughInterval
	SyncFlushTimeout      time.Duration // syncFlushTimeout
	WarmMappedFile        bool          // warmMapedFileEnable
	// PrefaultNextFile pre-faults the preallocated next file in the
	// background (no Java key; Java maps it cold unless warmMapedFileEnable),
	// so that appends into it do not take a first-touch page fault under the
	// append lock. It stays on by default although Java's warmMapedFileEnable
	// defaults to false: it is the "next file created and pre-faulted off the
	// hot path" requirement, it is interruptible (a file asked for early is
	// handed out at once) and it never blocks the writer. Its costs: about
	// one file (1 GiB) of page cache mapped ahead of the writer, which shows
	// in the broker's RSS as file pages, and the CPU of one fault per 4 KiB
	// on a background goroutine (6-20% of a 2-core embedded mqbench profile,
	// measured with the ConsumeQueue fix in place; turning it off there took
	// RSS from ~1.2 GB to ~0.2 GB with TPS within the machine's noise).
	// warmMapedFileEnable=true supersedes it with Java's warm-up of every
	// file before hand-out.
	PrefaultNextFile bool
	// DelayLevelTable maps a delay level (1..max) to its delay in ms
	// (messageDelayLevel parsed by ParseDelayLevels); the store computes
	// the delivery-time tagsCode of SCHEDULE_TOPIC_XXXX records from it.
	// MaxDelayLevel 0 disables the DELAY rewrite in PutMessage.
	DelayLevelTable map[int]int64
	MaxDelayLevel   int
}

// DefaultConfig is the 4.9.8 defaults for dir.
func DefaultConfig(dir string) Config {
	table, maxLevel, _ := ParseDelayLevels("1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h")
	return Config{
		Dir: dir, FileSize: 1 << 30, MaxMessageSize: 4 << 20,
		FlushInterval: 500 * time.Millisecond, FlushTimed: true, FlushLeastPages: 4,
		FlushThoroughInterval: 10 * time.Second, SyncFlushTimeout: 5 * time.Second,
		PrefaultNextFile: true, DelayLevelTable: table, MaxDelayLevel: maxLevel,
	}
}

// ParseDelayLevels parses messageDelayLevel ("1s 5s ... 2h"; units s, m, h,
// d) like ScheduleMessageService.parseDelayLevel: level i+1 = i-th entry.
func ParseDelayLevels(s string) (map[int]int64, int, error) {
	unit := map[byte]int64{'s': 1000, 'm': 60000, 'h': 3600000, 'd': 86400000}
	table := map[int]int64{}
	level := 0
	for _, f := range strings.Split(s, " ") {
		if f == "" {
			continue
		}
		u, ok := unit[f[len(f)-1]]
		n, err := strconv.ParseInt(f[:len(f)-1], 10, 64)
		if !ok || err != nil {
			return nil, 0, fmt.Errorf("commitlog: bad delay level %q", f)
		}
		level++
		table[level] = n * u
	}
	return table, level, nil
}
