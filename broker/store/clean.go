package store

// Retention and disk space: Java DefaultMessageStore.CleanCommitLogService,
// CleanConsumeQueueService, FlushConsumeQueueService, cleanUnusedTopic and
// cleanExpiredConsumerQueue.

import (
	"context"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/service"
)

const (
	maxManualDeleteFileTimes = 20
	deleteFilesBatchMax      = 10 // MappedFileQueue.DELETE_FILES_BATCH_MAX
	transOpHalfTopic         = "RMQ_SYS_TRANS_OP_HALF_TOPIC"
	timerTopic               = "rmq_sys_wheel_timer" // broker/timer's queue: never in the topic table
)

// cleanService runs CleanCommitLogService then CleanConsumeQueueService
// every cleanResourceInterval, after an initial delay.
type cleanService struct {
	s   *DefaultMessageStore
	svc *service.Service

	runMu             sync.Mutex // one retention pass at a time (service or CleanFilesNow)
	manualDeleteTimes atomic.Int32
	cleanImmediately  atomic.Bool
	firstRunAt        time.Time // wall time before which runs are skipped
	lastPhysicalMin   int64     // CleanConsumeQueueService.lastPhysicalMinOffset (runMu)
}

func newCleanService(s *DefaultMessageStore) *cleanService {
	c := &cleanService{s: s, firstRunAt: time.Now().Add(s.opts.cleanInitialDelay)}
	c.svc = service.New("cleanFilesService", time.Duration(s.cfg.CleanResourceInterval)*time.Millisecond,
		func(context.Context) {
			if time.Now().Before(c.firstRunAt) {
				return
			}
			c.run()
		})
	return c
}

// run is cleanFilesPeriodically.
func (c *cleanService) run() {
	c.runMu.Lock()
	defer c.runMu.Unlock()
	c.deleteExpiredCommitLog()
	c.deleteExpiredConsumeQueues()
}

// ExecuteDeleteFilesManually makes the next 20 runs delete expired files
// whatever the hour.
func (s *DefaultMessageStore) ExecuteDeleteFilesManually() {
	s.clean.manualDeleteTimes.Store(maxManualDeleteFileTimes)
	s.lg.Info("executeDeleteFilesManually was invoked")
}

// CleanFilesNow runs one retention pass at once (admin and tests).
func (s *DefaultMessageStore) CleanFilesNow() { s.clean.run() }

// deleteExpiredCommitLog is CleanCommitLogService.deleteExpiredFiles.
func (c *cleanService) deleteExpiredCommitLog() {
	s := c.s
	timeUp := c.isTimeToDelete()
	spaceFull := c.isSpaceToDelete()
	manual := c.manualDeleteTimes.Load() > 0
	if !timeUp && !spaceFull && !manual {
		return
	}
	if manual {
		c.manualDeleteTimes.Add(-1)
	}
	live := s.liveConfig() // one snapshot: what is logged is what is used
	cleanAtOnce := live.CleanFileForciblyEnable && c.cleanImmediately.Load()
	s.lg.Info("begin to delete before hours file", zap.Int("fileReservedTime", live.FileReservedTime),
		zap.Bool("timeup", timeUp), zap.Bool("spacefull", spaceFull), zap.Bool("cleanAtOnce", cleanAtOnce))
	reserved := time.Duration(live.FileReservedTime) * time.Hour
	// The file queue compares with the wall clock; shift the threshold so
	// that the store clock decides (identity with the default clock).
	reserved -= s.opts.now().Sub(time.Now())
	// Unlike Java, never delete what the dispatcher has not read yet: the
	// reput would skip to the new min offset and the consume queues would
	// miss those messages for good (their units then no longer match the
	// queue offsets of the messages they point at). A stalled dispatcher
	// (dispatch_stall.go) therefore also holds time-based retention back.
	// Not a full disk: a dispatcher stalls exactly when a ConsumeQueue file
	// cannot be created for want of space, and only deleting frees it, so
	// forced cleaning gives those queue units up, as Java does, and says so.
	keepFrom := s.reput.from.Load()
	if spaceFull || cleanAtOnce {
		if keepFrom < s.cl.MaxOffset() {
			s.lg.Error("disk full: forced cleaning may delete CommitLog files the dispatcher has not read yet; their messages then get no consume-queue units",
				zap.Int64("dispatchedTo", keepFrom), zap.Int64("commitLogMax", s.cl.MaxOffset()))
		}
		keepFrom = math.MaxInt64
	}
	n := s.cl.MappedFileQueue().DeleteExpiredFileByTime(reserved,
		time.Duration(live.DeleteCommitLogFilesInterval)*time.Millisecond, cleanAtOnce, deleteFilesBatchMax,
		keepFrom)
	if n == 0 && spaceFull {
		s.lg.Warn("disk space will be full soon, but delete file failed")
	}
	if n > 0 {
		s.notifyCommitLogFilesDeleted()
	}
}

// isTimeToDelete is UtilAll.isItTimeToDo(deleteWhen): the current hour is
// one of the ';'-separated hours.
func (c *cleanService) isTimeToDelete() bool {
	hour := c.s.opts.now().Hour()
	deleteWhen := c.s.liveConfig().DeleteWhen
	for _, w := range strings.Split(deleteWhen, ";") {
		if h, err := strconv.Atoi(w); err == nil && h == hour {
			c.s.lg.Info("it's time to reclaim disk space", zap.String("deleteWhen", deleteWhen))
			return true
		}
	}
	return false
}

// isSpaceToDelete is CleanCommitLogService.isSpaceToDelete: set/clear the
// disk-full flag, decide forced cleanup, and report whether usage is above
// diskMaxUsedSpaceRatio.
func (c *cleanService) isSpaceToDelete() bool {
	s := c.s
	ratio := float64(s.liveConfig().DiskMaxUsedSpaceRatio) / 100.0
	c.cleanImmediately.Store(false)
	for _, p := range []struct{ name, path string }{{"physic", s.cfg.CommitLogDir()}, {"logics", s.cfg.ConsumeQueueDir()}} {
		used := s.opts.diskUsage(p.path)
		c.applyUsage(p.name, used)
		if used < 0 || used > ratio {
			s.lg.Info("disk maybe full soon, so reclaim space", zap.String("disk", p.name), zap.Float64("ratio", used))
			return true
		}
	}
	return false
}

// applyUsage updates the disk-full flag and cleanImmediately for one path.
func (c *cleanService) applyUsage(name string, used float64) {
	s := c.s
	switch {
	case used > s.opts.warningRatio:
		if s.flags.makeDiskFull() {
			s.lg.Error("disk maybe full soon, so mark disk full", zap.String("disk", name), zap.Float64("ratio", used))
		}
		c.cleanImmediately.Store(true)
	case used > s.opts.forciblyRatio:
		c.cleanImmediately.Store(true)
	default:
		if !s.flags.makeDiskOK() {
			s.lg.Info("disk space OK, so mark disk ok", zap.String("disk", name), zap.Float64("ratio", used))
		}
	}
}

// isSpaceFull is the 10-second disk check of the CommitLog path.
func (c *cleanService) isSpaceFull() bool {
	s := c.s
	used := s.opts.diskUsage(s.cfg.CommitLogDir())
	if used > s.opts.warningRatio {
		if s.flags.makeDiskFull() {
			s.lg.Error("physic disk of commitLog maybe full soon, so mark disk full", zap.Float64("ratio", used))
		}
		return true
	}
	if !s.flags.makeDiskOK() {
		s.lg.Info("physic disk space of commitLog OK, so mark disk ok", zap.Float64("ratio", used))
	}
	return false
}

// deleteExpiredConsumeQueues is CleanConsumeQueueService.deleteExpiredFiles:
// once the CommitLog min offset moved, drop consume-queue and index files
// that only point below it.
func (c *cleanService) deleteExpiredConsumeQueues() {
	s := c.s
	minOffset := s.cl.MinOffset()
	if minOffset <= c.lastPhysicalMin {
		return
	}
	c.lastPhysicalMin = minOffset
	for _, cq := range s.allQueues() {
		if n := cq.DeleteExpiredFile(minOffset); n > 0 {
			if pause := s.liveConfig().DeleteConsumeQueueFilesInterval; pause > 0 {
				time.Sleep(time.Duration(pause) * time.Millisecond)
			}
		}
	}
	s.idx.DeleteExpiredFile(minOffset)
}

// flushConsumeQueue is one FlushConsumeQueueService round.
func (s *DefaultMessageStore) flushConsumeQueue(context.Context) { s.doFlushConsumeQueue(1) }

// doFlushConsumeQueue flushes every queue (at least flushConsumeQueueLeastPages
// dirty pages, or everything on a thorough round / the final round) and then
// the checkpoint.
func (s *DefaultMessageStore) doFlushConsumeQueue(retryTimes int) {
	least := s.cfg.FlushConsumeQueueLeastPages
	if retryTimes >= 3 {
		least = 0
	}
	logicsTS := int64(0)
	now := time.Now().UnixMilli()
	if now >= s.stats.lastCQFlush.Load()+int64(s.cfg.FlushConsumeQueueThoroughInterval) {
		s.stats.lastCQFlush.Store(now)
		least = 0
		logicsTS = s.ckpt.LogicsMsgTimestamp()
	}
	for _, cq := range s.allQueues() {
		tries := retryTimes
		if retryTimes >= 3 {
			tries = cq.FileCount() + 1 // final round: everything
		}
		for i := 0; i < tries; i++ {
			done, err := cq.Flush(least)
			if err != nil {
				s.lg.Warn("flush consume queue failed", zap.String("topic", cq.Topic()), zap.Error(err))
				break
			}
			if done {
				break
			}
		}
	}
	if least == 0 {
		if logicsTS > 0 {
			s.ckpt.SetLogicsMsgTimestamp(logicsTS)
		}
		if err := s.ckpt.Flush(); err != nil {
			s.lg.Warn("flush checkpoint failed", zap.Error(err))
		}
	}
}

// CleanUnusedTopic destroys the consume queues of topics not in keep, except
// SCHEDULE_TOPIC_XXXX and the transaction op topic (Java cleanUnusedTopic).
func (s *DefaultMessageStore) CleanUnusedTopic(keep map[string]struct{}) int {
	var drop []string
	s.cqMu.RLock()
	for topic := range s.cqTable {
		if _, ok := keep[topic]; !ok && topic != message.ScheduleTopic && topic != transOpHalfTopic && topic != timerTopic {
			drop = append(drop, topic)
		}
	}
	s.cqMu.RUnlock()
	s.DeleteTopics(drop)
	return 0
}

// DeleteTopics destroys every consume queue of the given topics and forgets
// their queue offsets; it returns the number of queues destroyed.
func (s *DefaultMessageStore) DeleteTopics(topics []string) int {
	n := 0
	for _, topic := range topics {
		s.cqMu.Lock()
		queues := s.cqTable[topic]
		delete(s.cqTable, topic)
		s.cqMu.Unlock()
		for _, cq := range queues {
			if err := cq.Destroy(); err != nil {
				s.lg.Warn("destroy consume queue failed", zap.String("topic", topic), zap.Error(err))
			}
			s.cl.RemoveQueueFromTopicQueueTable(topic, cq.QueueID())
			n++
		}
		if queues != nil {
			s.lg.Info("clean unused topic, topic destroyed", zap.String("topic", topic))
		}
	}
	return n
}

// CleanExpiredConsumerQueue destroys queues whose last unit points below the
// CommitLog min offset (Java cleanExpiredConsumerQueue).
func (s *DefaultMessageStore) CleanExpiredConsumerQueue() {
	minPhy := s.cl.MinOffset()
	for _, cq := range s.allQueues() {
		if cq.Topic() == message.ScheduleTopic {
			continue
		}
		last := cq.LastOffset()
		if last == -1 || last >= minPhy {
			continue
		}
		s.lg.Info("clean expired consumer queue, destroyed", zap.String("topic", cq.Topic()),
			zap.Int32("queueId", cq.QueueID()), zap.Int64("maxCLOffsetInConsumeQueue", last))
		s.cl.RemoveQueueFromTopicQueueTable(cq.Topic(), cq.QueueID())
		if err := cq.Destroy(); err != nil {
			s.lg.Warn("destroy consume queue failed", zap.Error(err))
		}
		s.cqMu.Lock()
		delete(s.cqTable[cq.Topic()], cq.QueueID())
		if len(s.cqTable[cq.Topic()]) == 0 {
			delete(s.cqTable, cq.Topic())
		}
		s.cqMu.Unlock()
	}
}
