package commitlog

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/store/checkpoint"
	"github.com/rocketmq-go/rmq/broker/store/mmap"
	"github.com/rocketmq-go/rmq/internal/service"
)

// Errors of the CommitLog.
var (
	ErrClosed        = errors.New("commitlog: closed")
	ErrOffsetGap     = errors.New("commitlog: replicated data does not start at the current max offset")
	ErrNoSuchOffset  = errors.New("commitlog: offset not in the commit log")
	ErrCorruptRecord = errors.New("commitlog: corrupt record")
)

// ReplicaWaiter is the hook the HA service implements for SYNC_MASTER
// (Java HAService.isSlaveOK + GroupTransferService). After a message is
// appended (and, with SYNC_FLUSH, concurrently with the disk flush) the
// CommitLog calls IsSlaveOK(end); false gives SLAVE_NOT_AVAILABLE, true
// calls WaitReplicated(end, syncFlushTimeout, done) and done(false) gives
// FLUSH_SLAVE_TIMEOUT. done may be called from any goroutine, exactly once.
type ReplicaWaiter interface {
	IsSlaveOK(masterPutWhere int64) bool
	WaitReplicated(offset int64, timeout time.Duration, done func(ok bool))
}

// CommitLog is the append-only message log (Java CommitLog).
type CommitLog struct {
	cfg Config
	lg  *zap.Logger
	q   *mmap.MappedFileQueue
	cp  *checkpoint.StoreCheckpoint // nil: timestamps not recorded

	putMu           sync.Mutex        // the append lock; guards topicQueueTable
	topicQueueTable map[string]*int64 // "topic-queueId" -> next queue offset
	keyBuf          []byte            // scratch for topicQueueTable keys; guarded by putMu

	beginTimeInLock atomic.Int64 // ms when the current append took the lock; 0 when free
	confirmOffset   atomic.Int64
	maxMsgSize      atomic.Int64 // live maxMessageSize (maxsize.go); 0: cfg's
	closed          atomic.Bool
	replica         atomic.Pointer[replicaBox]
	syncMaster      atomic.Bool // live brokerRole == SYNC_MASTER (role.go)

	flusher      *service.Service // ASYNC_FLUSH: FlushRealTimeService
	group        *groupCommit     // SYNC_FLUSH: GroupCommitService
	lastThorough atomic.Int64     // ms of the last full flush (async)
}

type replicaBox struct{ w ReplicaWaiter }

// New validates cfg and allocates; call Load, recovery, then Start.
// cp may be nil (tests); lg nil means no logging.
func New(cfg Config, cp *checkpoint.StoreCheckpoint, lg *zap.Logger) (*CommitLog, error) {
	if lg == nil {
		lg = zap.NewNop()
	}
	if cfg.Dir == "" || cfg.FileSize <= 64 || cfg.MaxMessageSize <= 0 {
		return nil, fmt.Errorf("commitlog: bad config dir=%q fileSize=%d maxMessageSize=%d", cfg.Dir, cfg.FileSize, cfg.MaxMessageSize)
	}
	if cfg.SyncFlushTimeout <= 0 {
		cfg.SyncFlushTimeout = 5 * time.Second
	}
	lg = lg.Named("store.commitlog")
	c := &CommitLog{
		cfg: cfg, lg: lg, cp: cp,
		q:               mmap.NewMappedFileQueue(cfg.Dir, cfg.FileSize, queueOptions(cfg), lg),
		topicQueueTable: map[string]*int64{},
	}
	c.syncMaster.Store(cfg.SyncMaster)
	if cfg.SyncFlush {
		c.group = newGroupCommit(c)
	} else {
		c.flusher = service.New("flushRealTimeService", cfg.FlushInterval, c.flushAsync)
	}
	return c, nil
}

// queueOptions: files prepared ahead by the allocator; every file warmed
// whole with warmMapedFileEnable (as Java), else a window ahead of the
// writer.
func queueOptions(cfg Config) mmap.QueueOptions {
	o := mmap.QueueOptions{Preallocate: true, Warm: cfg.WarmMappedFile, SmallPages: cfg.SyncFlush}
	if !cfg.WarmMappedFile {
		o.WarmAhead = cfg.WarmAhead
	}
	return o
}

// Load maps the existing files (Java CommitLog.load). A file of the wrong
// size fails.
func (c *CommitLog) Load() error { return c.q.Load() }

// Start spawns the flush service and starts preparing the next file the
// log will need (the first one of an empty log, else the one after the
// last), so that the first roll after start-up does not fault cold pages.
func (c *CommitLog) Start() {
	c.q.PreallocateNext(0)
	if c.group != nil {
		c.group.start()
		c.group.svc.Start()
	} else {
		c.flusher.Start()
	}
}

// Shutdown stops the flush service, flushes everything, and unmaps the
// files. Idempotent. Waiters still pending get their final status.
func (c *CommitLog) Shutdown(ctx context.Context) error {
	if !c.closed.CompareAndSwap(false, true) {
		return nil
	}
	var err error
	if c.group != nil {
		err = c.group.svc.Stop(ctx)
	} else {
		err = c.flusher.Stop(ctx)
	}
	c.putMu.Lock() // no append in flight from here on
	defer c.putMu.Unlock()
	if ferr := c.flushAll(); ferr != nil && err == nil {
		err = ferr
	}
	if c.group != nil {
		c.group.completeAll()
	}
	c.q.Shutdown()
	return err
}

// flushAll flushes until FlushedWhere reaches the written end.
func (c *CommitLog) flushAll() error {
	for c.q.FlushedWhere() < c.q.MaxWrotePosition() {
		noMove, err := c.q.Flush(0)
		if err != nil {
			return err
		}
		if noMove {
			break
		}
	}
	c.recordFlushTimestamp()
	return nil
}

func (c *CommitLog) recordFlushTimestamp() {
	if ts := c.q.StoreTimestamp(); c.cp != nil && ts > 0 {
		c.cp.SetPhysicMsgTimestamp(ts)
	}
}

// SetReplicaWaiter installs the HA hook (nil removes it).
func (c *CommitLog) SetReplicaWaiter(w ReplicaWaiter) {
	if w == nil {
		c.replica.Store(nil)
		return
	}
	c.replica.Store(&replicaBox{w: w})
}

// MappedFileQueue exposes the underlying files (cleanup, HA, metrics).
func (c *CommitLog) MappedFileQueue() *mmap.MappedFileQueue { return c.q }

// Config returns the configuration in use.
func (c *CommitLog) Config() Config { return c.cfg }

// BeginTimeInLock is the ms timestamp at which the running append took the
// lock, 0 when no append runs (DefaultMessageStore.isOSPageCacheBusy uses
// now - BeginTimeInLock() > osPageCacheBusyTimeOutMills).
func (c *CommitLog) BeginTimeInLock() int64 { return c.beginTimeInLock.Load() }

// MaxOffset is the end of the readable log.
func (c *CommitLog) MaxOffset() int64 { return c.q.MaxOffset() }

// MinOffset is the first readable offset (Java getMinOffset: the first
// file's start, or the next file's start when the first is being deleted; 0
// for an empty log).
func (c *CommitLog) MinOffset() int64 {
	f := c.q.FirstMappedFile()
	if f == nil {
		return 0
	}
	if f.IsAvailable() {
		return f.FileFromOffset()
	}
	return c.RollNextFile(f.FileFromOffset())
}

// RollNextFile is the start of the file after the one holding offset.
func (c *CommitLog) RollNextFile(offset int64) int64 {
	fs := int64(c.cfg.FileSize)
	return offset + fs - offset%fs
}

// FlushedWhere is the offset up to which the log is on disk.
func (c *CommitLog) FlushedWhere() int64 { return c.q.FlushedWhere() }

// ConfirmOffset is the offset confirmed by replication (Java confirmOffset).
func (c *CommitLog) ConfirmOffset() int64 { return c.confirmOffset.Load() }

// SetConfirmOffset sets it.
func (c *CommitLog) SetConfirmOffset(v int64) { c.confirmOffset.Store(v) }

// TopicQueueTable returns a copy of the next-queue-offset table.
func (c *CommitLog) TopicQueueTable() map[string]int64 {
	c.putMu.Lock()
	defer c.putMu.Unlock()
	out := make(map[string]int64, len(c.topicQueueTable))
	for k, v := range c.topicQueueTable {
		out[k] = *v
	}
	return out
}

// SetTopicQueueTable replaces the table (after recovery, from the consume
// queues' max offsets). Keys are TopicQueueKey(topic, queueID).
func (c *CommitLog) SetTopicQueueTable(t map[string]int64) {
	n := make(map[string]*int64, len(t))
	for k, v := range t {
		n[k] = &v
	}
	c.putMu.Lock()
	c.topicQueueTable = n
	c.putMu.Unlock()
}

// RemoveQueueFromTopicQueueTable forgets one queue (Java
// removeQueueFromTopicQueueTable).
func (c *CommitLog) RemoveQueueFromTopicQueueTable(topic string, queueID int32) {
	c.putMu.Lock()
	delete(c.topicQueueTable, TopicQueueKey(topic, queueID))
	c.putMu.Unlock()
}

// RemoveTopic forgets every queue of topic (topic deletion).
func (c *CommitLog) RemoveTopic(topic string) {
	prefix := topic + "-"
	c.putMu.Lock()
	for k := range c.topicQueueTable {
		if len(k) > len(prefix) && k[:len(prefix)] == prefix && isDigits(k[len(prefix):]) {
			delete(c.topicQueueTable, k)
		}
	}
	c.putMu.Unlock()
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// TopicQueueKey is Java's topicQueueTable key: topic + "-" + queueId.
func TopicQueueKey(topic string, queueID int32) string {
	return topic + "-" + itoa(int64(queueID))
}

func itoa(v int64) string {
	var b [20]byte
	i := len(b)
	neg := v < 0
	if neg {
		v = -v
	}
	for {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
