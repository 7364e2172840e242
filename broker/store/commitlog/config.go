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
	// WarmAhead is how many bytes past the write position are kept
	// write-faulted in the background (no Java key; DefaultWarmAhead), so
	// that appends seldom take a first-touch page fault under the append
	// lock. Java maps files cold unless warmMapedFileEnable; this costs
	// at most one window of resident, allocated pages beyond what was
	// written. Ignored with WarmMappedFile, which warms every whole file.
	WarmAhead int
	// DelayLevelTable maps a delay level (1..max) to its delay in ms
	// (messageDelayLevel parsed by ParseDelayLevels); the store computes
	// the delivery-time tagsCode of SCHEDULE_TOPIC_XXXX records from it.
	// MaxDelayLevel 0 disables the DELAY rewrite in PutMessage.
	DelayLevelTable map[int]int64
	MaxDelayLevel   int
}

// DefaultWarmAhead is the default WarmAhead: at 1 KiB messages about 4,000
// appends, tens of milliseconds at the append path's full speed, while
// write-faulting it takes the warmer about a millisecond.
const DefaultWarmAhead = 4 << 20

// DefaultConfig is the 4.9.8 defaults for dir.
func DefaultConfig(dir string) Config {
	table, maxLevel, _ := ParseDelayLevels("1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h")
	return Config{
		Dir: dir, FileSize: 1 << 30, MaxMessageSize: 4 << 20,
		FlushInterval: 500 * time.Millisecond, FlushTimed: true, FlushLeastPages: 4,
		FlushThoroughInterval: 10 * time.Second, SyncFlushTimeout: 5 * time.Second,
		WarmAhead: DefaultWarmAhead, DelayLevelTable: table, MaxDelayLevel: maxLevel,
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
