package store

// DefaultMessageStore: construction, load/recovery, start and shutdown
// (Java org.apache.rocketmq.store.DefaultMessageStore load/recover/start/
// shutdown).

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/store/checkpoint"
	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/broker/store/consumequeue"
	"github.com/rocketmq-go/rmq/broker/store/index"
	"github.com/rocketmq-go/rmq/internal/service"
)

// ErrShutdown is returned by calls made after Shutdown.
var ErrShutdown = errors.New("store: shut down")

// Option customises a DefaultMessageStore.
type Option func(*options)

type options struct {
	listener          MessageArrivingListener
	now               func() time.Time
	diskUsage         func(path string) float64
	totalMemory       int64
	brokerID          int64
	cleanInitialDelay time.Duration
	diskCheckInterval time.Duration
	warningRatio      float64
	forciblyRatio     float64
	// dispatchRetry and dispatchMaxBackoff pace the retries of a
	// consume-queue unit that cannot be written (dispatch_stall.go).
	dispatchRetry      time.Duration
	dispatchMaxBackoff time.Duration
	scan               scanOptions // the abnormal recovery's scanners (recover_scan.go)
}

// WithMessageArrivingListener sets the long-poll listener told about every
// dispatched unit on a master (nil: none; pass nil when longPollingEnable
// is false).
func WithMessageArrivingListener(l MessageArrivingListener) Option {
	return func(o *options) { o.listener = l }
}

// WithClock replaces time.Now (retention decisions, deleteWhen, index file
// names, stats).
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// WithDiskUsage replaces the disk usage probe: the used fraction (0..1) of
// the partition holding path, or -1 when unknown (Java
// UtilAll.getDiskPartitionSpaceUsedPercent).
func WithDiskUsage(f func(path string) float64) Option {
	return func(o *options) { o.diskUsage = f }
}

// WithTotalPhysicalMemory overrides the physical memory size used by the
// hot/cold data rules (default: MemTotal of /proc/meminfo).
func WithTotalPhysicalMemory(bytes int64) Option {
	return func(o *options) { o.totalMemory = bytes }
}

// WithBrokerID tells the store whether it is a master (0) for the
// dispatcher's handling of unreadable records (Java brokerConfig.brokerId).
func WithBrokerID(id int64) Option { return func(o *options) { o.brokerID = id } }

// WithCleanInitialDelay sets the delay before the first retention run
// (Java: 60 s); the period is cleanResourceInterval.
func WithCleanInitialDelay(d time.Duration) Option {
	return func(o *options) { o.cleanInitialDelay = d }
}

// WithDiskCheckInterval sets the period of the disk-full check (Java: 10 s).
func WithDiskCheckInterval(d time.Duration) Option {
	return func(o *options) { o.diskCheckInterval = d }
}

// WithDiskRatios sets the disk fractions above which writes are refused
// and cleanup is forced (Java system properties
// rocketmq.broker.diskSpaceWarningLevelRatio 0.90 and
// rocketmq.broker.diskSpaceCleanForciblyRatio 0.85).
func WithDiskRatios(warning, forcibly float64) Option {
	return func(o *options) { o.warningRatio, o.forciblyRatio = warning, forcibly }
}

// DefaultMessageStore is the CommitLog + ConsumeQueue + IndexFile store.
type DefaultMessageStore struct {
	cfg  *MessageStoreConfig
	opts options
	lg   *zap.Logger

	cl   *commitlog.CommitLog
	ckpt *checkpoint.StoreCheckpoint
	lock *checkpoint.FileLock
	idx  *index.Service

	cqMu    sync.RWMutex // guards cqTable (not the queues' content)
	cqTable map[string]map[int32]*consumequeue.ConsumeQueue

	flags            runningFlags
	lastExitOK       bool
	abnormalScanFrom int64         // where the abnormal recovery's scan began
	delayLevels      map[int]int64 // messageDelayLevel: level -> delay ms
	maxDelayLevel    int
	reput            *reputService
	stats            *storeStats
	clean            *cleanService
	live             liveCfg  // settings UPDATE_BROKER_CONFIG changed (liveconfig.go)
	role             liveRole // the live brokerRole (role.go)

	services []*service.Service // started in Start, stopped in reverse
	started  atomic.Bool
	shutdown atomic.Bool // set at the beginning of Shutdown
}

var _ MessageStore = (*DefaultMessageStore)(nil)

// Open validates cfg, takes the store lock, loads the CommitLog, consume
// queues, checkpoint and index, and recovers them (Java
// DefaultMessageStore constructor + load). Nothing runs until Start.
func Open(cfg *MessageStoreConfig, lg *zap.Logger, opts ...Option) (*DefaultMessageStore, error) {
	if lg == nil {
		lg = zap.NewNop()
	}
	if err := validate(cfg); err != nil {
		return nil, err
	}
	s := &DefaultMessageStore{cfg: cfg, lg: lg.Named("store"), cqTable: map[string]map[int32]*consumequeue.ConsumeQueue{}}
	for _, w := range cfg.Unimplemented() {
		s.lg.Warn("setting accepted but not implemented", zap.String("detail", w))
	}
	s.opts = options{now: time.Now, cleanInitialDelay: time.Minute,
		diskCheckInterval: 10 * time.Second, warningRatio: 0.90, forciblyRatio: 0.85,
		dispatchRetry: time.Second, dispatchMaxBackoff: 5 * time.Second}
	for _, o := range opts {
		o(&s.opts)
	}
	if s.opts.diskUsage == nil {
		s.opts.diskUsage = s.storedFraction
	}
	if s.opts.totalMemory <= 0 {
		s.opts.totalMemory = totalPhysicalMemory()
	}
	s.role.init(s.opts.brokerID)
	if err := s.open(); err != nil {
		if s.cl != nil {
			_ = s.cl.Shutdown(context.Background())
		}
		if s.idx != nil {
			_ = s.idx.Shutdown()
		}
		s.closeFiles()
		return nil, err
	}
	return s, nil
}

func validate(cfg *MessageStoreConfig) error {
	var errs []error
	if cfg == nil {
		return errors.New("store: nil config")
	}
	if cfg.StorePathRootDir == "" {
		errs = append(errs, errors.New("store: storePathRootDir is empty"))
	}
	if cfg.MappedFileSizeConsumeQueue < consumequeue.UnitSize || cfg.MappedFileSizeConsumeQueue%consumequeue.UnitSize != 0 {
		errs = append(errs, fmt.Errorf("store: mappedFileSizeConsumeQueue %d is not a multiple of 20", cfg.MappedFileSizeConsumeQueue))
	}
	if cfg.MaxHashSlotNum <= 0 || cfg.MaxIndexNum <= 1 {
		errs = append(errs, fmt.Errorf("store: bad index size maxHashSlotNum=%d maxIndexNum=%d", cfg.MaxHashSlotNum, cfg.MaxIndexNum))
	}
	return errors.Join(errs...)
}

// commitLogConfig derives the CommitLog's configuration.
func (s *DefaultMessageStore) commitLogConfig() (commitlog.Config, error) {
	c := s.cfg
	cc := commitlog.DefaultConfig(c.CommitLogDir())
	cc.FileSize = c.MappedFileSizeCommitLog
	cc.MaxMessageSize = c.MaxMessageSize
	cc.SyncFlush = c.FlushDiskType == SyncFlush
	cc.SyncMaster = c.BrokerRole == SyncMaster
	cc.FlushInterval = time.Duration(c.FlushIntervalCommitLog) * time.Millisecond
	cc.FlushTimed = c.FlushCommitLogTimed
	cc.FlushLeastPages = c.FlushCommitLogLeastPages
	cc.FlushThoroughInterval = time.Duration(c.FlushCommitLogThoroughInterval) * time.Millisecond
	cc.SyncFlushTimeout = time.Duration(c.SyncFlushTimeout) * time.Millisecond
	cc.WarmMappedFile = c.WarmMapedFileEnable // replaces the warm-ahead window (commitlog.Config.WarmAhead)
	table, maxLevel, err := commitlog.ParseDelayLevels(c.MessageDelayLevel)
	if err != nil {
		return cc, err
	}
	cc.DelayLevelTable, cc.MaxDelayLevel = table, maxLevel
	return cc, nil
}

// open is the body of Open: lock, load, recover.
func (s *DefaultMessageStore) open() error {
	for _, d := range []string{s.cfg.StorePathRootDir, s.cfg.CommitLogDir(), s.cfg.ConsumeQueueDir()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("store: %w", err)
		}
	}
	pc := newPhaseClock(s.lg)
	lock, err := checkpoint.TryLock(s.cfg.LockPath())
	if err != nil {
		return err
	}
	s.lock = lock
	s.lastExitOK = !checkpoint.AbortFileExists(s.cfg.AbortPath())
	s.lg.Info("last shutdown", zap.Bool("normally", s.lastExitOK))
	if s.ckpt, err = checkpoint.Open(s.cfg.CheckpointPath()); err != nil {
		return err
	}
	cc, err := s.commitLogConfig()
	if err != nil {
		return err
	}
	s.delayLevels, s.maxDelayLevel = cc.DelayLevelTable, cc.MaxDelayLevel
	if s.cl, err = commitlog.New(cc, s.ckpt, s.lg); err != nil {
		return err
	}
	pc.done("checkpoint")
	if err := s.cl.Load(); err != nil {
		return err
	}
	pc.done("commitlog load", zap.Int("files", len(s.cl.MappedFileQueue().Files())))
	if err := s.loadConsumeQueues(); err != nil {
		return err
	}
	pc.done("consumequeue load")
	s.idx = index.NewService(index.Config{Dir: s.cfg.IndexDir(), HashSlotNum: s.cfg.MaxHashSlotNum,
		IndexNum: s.cfg.MaxIndexNum, MaxMsgsNumBatch: s.cfg.MaxMsgsNumBatch, Now: s.opts.now}, s.ckpt, s.lg.Named("index"))
	if err := s.idx.Load(s.lastExitOK, s.ckpt.IndexMsgTimestamp()); err != nil {
		return err
	}
	pc.done("index load", zap.Int("files", len(s.idx.Files())))
	s.stats = newStoreStats(s.opts.now())
	s.reput = newReputService(s)
	s.clean = newCleanService(s)
	return s.recover(pc)
}

// loadConsumeQueues maps every consumequeue/<topic>/<queueId> directory.
func (s *DefaultMessageStore) loadConsumeQueues() error {
	root := s.cfg.ConsumeQueueDir()
	topics, err := os.ReadDir(root)
	if err != nil {
		return fmt.Errorf("store: load consume queues: %w", err)
	}
	for _, t := range topics {
		if !t.IsDir() {
			continue
		}
		qs, err := os.ReadDir(filepath.Join(root, t.Name()))
		if err != nil {
			return fmt.Errorf("store: load consume queues: %w", err)
		}
		for _, q := range qs {
			id, err := strconv.ParseInt(q.Name(), 10, 32)
			if err != nil || !q.IsDir() {
				continue
			}
			cq := consumequeue.New(root, t.Name(), int32(id), s.cfg.MappedFileSizeConsumeQueue, s.lg.Named("consumequeue"))
			if err := cq.Load(); err != nil {
				return err
			}
			s.putConsumeQueue(cq)
		}
	}
	return nil
}

func (s *DefaultMessageStore) putConsumeQueue(cq *consumequeue.ConsumeQueue) {
	s.cqMu.Lock()
	defer s.cqMu.Unlock()
	m := s.cqTable[cq.Topic()]
	if m == nil {
		m = map[int32]*consumequeue.ConsumeQueue{}
		s.cqTable[cq.Topic()] = m
	}
	m[cq.QueueID()] = cq
}

func (s *DefaultMessageStore) truncateDirtyLogicFiles(phyOffset int64) error {
	for _, cq := range s.allQueues() {
		if err := cq.TruncateDirtyLogicFiles(phyOffset); err != nil {
			return err
		}
	}
	return nil
}

func (s *DefaultMessageStore) destroyLogics() {
	for _, cq := range s.allQueues() {
		if err := cq.Destroy(); err != nil {
			s.lg.Warn("destroy consume queue failed", zap.String("topic", cq.Topic()), zap.Error(err))
		}
	}
}

// recoverTopicQueueTable rebuilds the CommitLog's next-queue-offset table
// from the consume queues and corrects their min offsets.
func (s *DefaultMessageStore) recoverTopicQueueTable() {
	table := map[string]int64{}
	minPhy := s.cl.MinOffset()
	for _, cq := range s.allQueues() {
		table[commitlog.TopicQueueKey(cq.Topic(), cq.QueueID())] = cq.MaxOffsetInQueue()
		cq.CorrectMinOffset(minPhy)
	}
	s.cl.SetTopicQueueTable(table)
}

// allQueues is a snapshot of every consume queue.
func (s *DefaultMessageStore) allQueues() []*consumequeue.ConsumeQueue {
	s.cqMu.RLock()
	defer s.cqMu.RUnlock()
	var out []*consumequeue.ConsumeQueue
	for _, m := range s.cqTable {
		for _, cq := range m {
			out = append(out, cq)
		}
	}
	return out
}

// Start dispatches what the consume queues and index lack, rebuilds the
// queue offset table and starts the services (Java start).
func (s *DefaultMessageStore) Start() error {
	if s.shutdown.Load() {
		return ErrShutdown
	}
	if !s.started.CompareAndSwap(false, true) {
		return nil
	}
	from := s.cl.MinOffset()
	for _, cq := range s.allQueues() {
		from = max(from, cq.MaxPhysicOffset())
	}
	from = max(from, 0)
	s.lg.Info("set reput offset", zap.Int64("reputFromOffset", from), zap.Int64("commitLogMinOffset", s.cl.MinOffset()),
		zap.Int64("commitLogMaxOffset", s.cl.MaxOffset()))
	s.reput.setFrom(from)
	pc := newPhaseClock(s.lg)
	for s.DispatchBehindBytes() > 0 && s.reput.doReput() {
	}
	s.recoverTopicQueueTable()
	pc.done("dispatch catch-up", zap.Int64("bytes", s.cl.MaxOffset()-from))
	s.services = []*service.Service{
		s.reput.svc,
		service.New("flushConsumeQueueService", time.Duration(s.cfg.FlushIntervalConsumeQueue)*time.Millisecond, s.flushConsumeQueue),
		service.New("storeStatsService", time.Second, func(context.Context) {
			for _, l := range s.stats.sample(s.opts.now()) {
				s.lg.Info(l) // store.log, as StoreStatsService.printTps
			}
		}),
		service.New("diskCheckService", s.opts.diskCheckInterval, func(context.Context) { s.clean.isSpaceFull() }),
		s.clean.svc,
	}
	for _, svc := range s.services {
		svc.Start()
	}
	s.cl.Start()
	if err := checkpoint.CreateAbortFile(s.cfg.AbortPath()); err != nil {
		return err
	}
	return nil
}

// Shutdown stops the services, lets the dispatcher finish, flushes the
// consume queues, index, CommitLog and checkpoint, unmaps everything,
// removes the abort file when the store is consistent and releases the
// lock (Java shutdown). Idempotent.
func (s *DefaultMessageStore) Shutdown(ctx context.Context) error {
	if !s.shutdown.CompareAndSwap(false, true) {
		return nil
	}
	var errs []error
	if s.started.Load() {
		s.reput.drain(ctx)
		for i := len(s.services) - 1; i >= 0; i-- {
			errs = append(errs, s.services[i].Stop(ctx))
		}
		s.doFlushConsumeQueue(3)
	}
	errs = append(errs, s.cl.Shutdown(ctx))
	errs = append(errs, s.idx.Shutdown())
	errs = append(errs, s.ckpt.Flush())
	if s.started.Load() && s.flags.isWriteable() && s.DispatchBehindBytes() == 0 {
		errs = append(errs, checkpoint.RemoveAbortFile(s.cfg.AbortPath()))
	} else if s.started.Load() {
		s.lg.Warn("the store may be wrong, so shutdown abnormally, and keep abort file")
	}
	s.closeFiles()
	return errors.Join(errs...)
}

// closeFiles unmaps the consume queues and releases the lock.
func (s *DefaultMessageStore) closeFiles() {
	for _, cq := range s.allQueues() {
		cq.Shutdown()
	}
	if s.ckpt != nil {
		_ = s.ckpt.Close()
	}
	if s.lock != nil {
		_ = s.lock.Unlock()
		s.lock = nil
	}
}

// MessageStoreConfig is the configuration the store runs with.
func (s *DefaultMessageStore) MessageStoreConfig() *MessageStoreConfig { return s.cfg }

// CommitLog exposes the CommitLog.
func (s *DefaultMessageStore) CommitLog() *commitlog.CommitLog { return s.cl }

// Checkpoint exposes the store checkpoint.
func (s *DefaultMessageStore) Checkpoint() *checkpoint.StoreCheckpoint { return s.ckpt }

// LastExitOK reports whether the previous run ended with a clean shutdown.
func (s *DefaultMessageStore) LastExitOK() bool { return s.lastExitOK }

// Now is the store clock in ms.
func (s *DefaultMessageStore) Now() int64 { return s.opts.now().UnixMilli() }
