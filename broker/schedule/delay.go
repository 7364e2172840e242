package schedule

import (
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/internal/configfile"
	"github.com/rocketmq-go/rmq/remoting/body"
)

// DefaultMessageDelayLevel is MessageStoreConfig.messageDelayLevel's default.
const DefaultMessageDelayLevel = "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h"

// ScheduleTopic is TopicValidator.RMQ_SYS_SCHEDULE_TOPIC.
const ScheduleTopic = "SCHEDULE_TOPIC_XXXX"

// ErrBadDelayLevel wraps every messageDelayLevel parse failure.
var ErrBadDelayLevel = errors.New("schedule: bad messageDelayLevel")

var delayUnits = map[byte]time.Duration{'s': time.Second, 'm': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour}

// ParseDelayLevel parses a messageDelayLevel string as
// ScheduleMessageService.parseDelayLevel does: items separated by single
// spaces, each a decimal count followed by one unit of s, m, h or d. Element
// i of the result is the delay of level i+1.
func ParseDelayLevel(s string) ([]time.Duration, error) {
	items := strings.Split(s, " ")
	out := make([]time.Duration, 0, len(items))
	for i, it := range items {
		if it == "" {
			return nil, fmt.Errorf("%w: empty item %d in %q", ErrBadDelayLevel, i+1, s)
		}
		unit, ok := delayUnits[it[len(it)-1]]
		if !ok {
			return nil, fmt.Errorf("%w: unknown unit in %q", ErrBadDelayLevel, it)
		}
		n, err := strconv.ParseInt(it[:len(it)-1], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: %q: %v", ErrBadDelayLevel, it, err)
		}
		out = append(out, time.Duration(n)*unit)
	}
	return out, nil
}

// QueueIDToDelayLevel is ScheduleMessageService.queueId2DelayLevel.
func QueueIDToDelayLevel(queueID int32) int32 { return queueID + 1 }

// DelayLevelToQueueID is ScheduleMessageService.delayLevel2QueueId.
func DelayLevelToQueueID(level int32) int32 { return level - 1 }

// OffsetTable is the delay level -> next offset table of delayOffset.json.
type OffsetTable struct {
	path string
	lg   *zap.Logger

	persistMu sync.Mutex // serializes Persist so the newest snapshot is written last
	mu        sync.Mutex // guards table
	table     map[int32]int64
}

// NewOffsetTable returns an empty table persisted at path
// (<storePathRootDir>/config/delayOffset.json). A nil logger is allowed.
func NewOffsetTable(path string, lg *zap.Logger) *OffsetTable {
	if lg == nil {
		lg = zap.NewNop()
	}
	return &OffsetTable{path: path, lg: lg, table: map[int32]int64{}}
}

// Path returns the file the table persists to.
func (t *OffsetTable) Path() string { return t.path }

// Offset returns the offset recorded for level.
func (t *OffsetTable) Offset(level int32) (int64, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	v, ok := t.table[level]
	return v, ok
}

// UpdateOffset records the next offset to deliver for level (updateOffset).
func (t *OffsetTable) UpdateOffset(level int32, offset int64) {
	t.mu.Lock()
	t.table[level] = offset
	t.mu.Unlock()
}

// Snapshot returns a copy of the table.
func (t *OffsetTable) Snapshot() map[int32]int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return maps.Clone(t.table)
}

// Encode is encode(): the compact body answered to GET_ALL_DELAY_OFFSET.
func (t *OffsetTable) Encode() []byte {
	w := body.DelayOffsetSerializeWrapper{OffsetTable: t.Snapshot()}
	return w.Encode()
}

// decode merges data into the table (putAll), leaving it untouched on error.
func (t *OffsetTable) decode(data []byte) error {
	var w body.DelayOffsetSerializeWrapper
	if err := w.Decode(data); err != nil {
		return err
	}
	t.mu.Lock()
	maps.Copy(t.table, w.OffsetTable)
	t.mu.Unlock()
	return nil
}

// Load reads delayOffset.json (falling back to its .bak) into the table.
func (t *OffsetTable) Load() error {
	return configfile.LoadLogged(t.lg, "delay offset", t.path, t.decode)
}

// Persist writes the table in Java's pretty layout.
func (t *OffsetTable) Persist() error {
	t.persistMu.Lock()
	defer t.persistMu.Unlock()
	if err := configfile.PersistPretty(t.path, t.Encode()); err != nil {
		t.lg.Error("persist delay offset failed", zap.String("path", t.path), zap.Error(err))
		return err
	}
	return nil
}

// StoreRaw is what a slave does with the master's GET_ALL_DELAY_OFFSET
// answer (SlaveSynchronize.syncDelayOffset): the text is written to
// delayOffset.json as is. It is checked to decode first, and merged into
// the in-memory table too so a later promotion starts from it.
func (t *OffsetTable) StoreRaw(data []byte) error {
	var w body.DelayOffsetSerializeWrapper
	if err := w.Decode(data); err != nil {
		return fmt.Errorf("schedule: master delay offsets: %w", err)
	}
	t.persistMu.Lock()
	defer t.persistMu.Unlock()
	if err := configfile.Persist(t.path, data); err != nil {
		return err
	}
	t.mu.Lock()
	maps.Copy(t.table, w.OffsetTable)
	t.mu.Unlock()
	return nil
}

// QueueBounds reports the min and max offset of a SCHEDULE_TOPIC_XXXX
// consume queue, and false when that queue does not exist.
type QueueBounds func(queueID int32) (minOffset, maxOffset int64, ok bool)

// CorrectDelayOffset is correctDelayOffset, run by Java's load: for each of
// levels delay levels (1..levels) with a recorded offset and an existing
// queue, an offset below the queue's min or above its max is clamped into
// range. It returns the levels it corrected.
func (t *OffsetTable) CorrectDelayOffset(levels int, bounds QueueBounds) []int32 {
	var fixed []int32
	t.mu.Lock()
	defer t.mu.Unlock()
	for level := int32(1); level <= int32(levels); level++ {
		cur, ok := t.table[level]
		if !ok {
			continue
		}
		lo, hi, ok := bounds(DelayLevelToQueueID(level))
		if !ok {
			continue
		}
		want := cur
		if cur < lo {
			want = lo
		}
		if cur > hi { // checked last, as in Java
			want = hi
		}
		if want != cur {
			t.lg.Error("correct delay offset", zap.Int32("delayLevel", level),
				zap.Int64("offset", cur), zap.Int64("correctOffset", want),
				zap.Int64("cqMinOffset", lo), zap.Int64("cqMaxOffset", hi))
			t.table[level] = want
			fixed = append(fixed, level)
		}
	}
	return fixed
}
