package index

// This file mirrors Java org.apache.rocketmq.store.index.IndexService (4.9.8).

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/store/mmap"
	"github.com/rocketmq-go/rmq/internal/message"
)

// Checkpoint is the part of the store checkpoint the index updates when a
// full index file has been flushed.
type Checkpoint interface {
	SetIndexMsgTimestamp(v int64)
	Flush() error
}

// Config configures a Service.
type Config struct {
	Dir             string // <storePathRootDir>/index
	HashSlotNum     int    // maxHashSlotNum
	IndexNum        int    // maxIndexNum
	MaxMsgsNumBatch int    // maxMsgsNumBatch: cap of one query
	// Now is the clock used to name new files (nil: time.Now).
	Now func() time.Time
}

// Request is what the dispatcher indexes for one CommitLog record.
// BuildIndex keeps no string of it past the call: the dispatcher passes
// Keys and UniqKey aliasing the CommitLog mapping.
type Request struct {
	Topic           string
	Keys            string // KEYS property (space-separated)
	UniqKey         string // UNIQ_KEY property
	CommitLogOffset int64
	StoreTimestamp  int64
	SysFlag         int32
}

// QueryResult is the answer of QueryOffset (Java QueryOffsetResult).
type QueryResult struct {
	PhyOffsets               []int64
	IndexLastUpdateTimestamp int64
	IndexLastUpdatePhyoffset int64
}

// Service owns the index files, oldest first.
type Service struct {
	cfg  Config
	ckpt Checkpoint
	lg   *zap.Logger

	mu    sync.RWMutex // guards files and every file's header and content
	files []*File
	topic topicHash // of the last topic indexed (mu): records come in runs of a topic

	flushWG   sync.WaitGroup // background flushes of full files
	flushMu   sync.Mutex     // serialises checkpoint updates of background flushes
	flushedTS int64          // highest end timestamp recorded (flushMu)

	// removed is closed by the goroutine Load starts to delete the files
	// it dropped (nil when it started none); removeErr is that
	// goroutine's result, read only after removed is closed.
	removed   chan struct{}
	removeErr error
	remove    func(string) error // os.Remove; tests make it fail
}

// NewService returns a service with no files loaded.
func NewService(cfg Config, ckpt Checkpoint, lg *zap.Logger) *Service {
	if lg == nil {
		lg = zap.NewNop()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxMsgsNumBatch <= 0 {
		cfg.MaxMsgsNumBatch = 64
	}
	return &Service{cfg: cfg, ckpt: ckpt, lg: lg, remove: os.Remove}
}

// Load maps the existing index files in name order. After an abnormal exit
// (lastExitOK false) files whose end timestamp is after indexMsgTimestamp
// are dropped, as their content may be incomplete: unmapped here and
// deleted on a goroutine (unlinking a large file whose pages are cached
// takes tens of ms per file), which WaitRemoved waits for.
func (s *Service) Load(lastExitOK bool, indexMsgTimestamp int64) error {
	ents, err := os.ReadDir(s.cfg.Dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("index: load: %w", err)
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	s.mu.Lock()
	defer s.mu.Unlock()
	var stale []string
	defer func() { s.removeInBackground(stale) }()
	for _, n := range names {
		f, err := openFile(filepath.Join(s.cfg.Dir, n), s.cfg.HashSlotNum, s.cfg.IndexNum, 0, 0)
		if err != nil {
			return err
		}
		mmap.LogReserveProblem(s.lg, f.path, f.reserveErr)
		f.load()
		if !lastExitOK && f.hdr.EndTimestamp > indexMsgTimestamp {
			s.lg.Info("destroy index file newer than checkpoint", zap.String("file", f.path),
				zap.Int64("endTimestamp", f.hdr.EndTimestamp), zap.Int64("indexMsgTimestamp", indexMsgTimestamp))
			if err := f.close(); err != nil {
				return err
			}
			stale = append(stale, f.path)
			continue
		}
		s.files = append(s.files, f)
	}
	return nil
}

// removeInBackground deletes paths, in order, on a goroutine that
// WaitRemoved, Shutdown and Destroy wait for. A new file cannot take a
// name still being deleted: newFileName skips names that exist.
func (s *Service) removeInBackground(paths []string) {
	if len(paths) == 0 {
		return
	}
	done := make(chan struct{})
	s.removed = done
	go func() {
		defer close(done)
		for _, p := range paths {
			if err := s.remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
				s.removeErr = errors.Join(s.removeErr, fmt.Errorf("index: remove %s: %w", p, err))
			}
		}
	}()
}

// WaitRemoved waits until the files Load dropped are deleted and reports
// a failure to delete one (then the store must not start: the file would
// be loaded again as if valid after a clean shutdown).
func (s *Service) WaitRemoved() error {
	if s.removed == nil {
		return nil
	}
	<-s.removed
	return s.removeErr
}

// Files returns the headers and paths of the loaded files, oldest first.
func (s *Service) Files() []FileInfo {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]FileInfo, len(s.files))
	for i, f := range s.files {
		out[i] = FileInfo{Path: f.path, Header: f.hdr}
	}
	return out
}

// FileInfo describes one index file.
type FileInfo struct {
	Path   string
	Header Header
}

// keySeparator splits the KEYS property (MessageConst.KEY_SEPARATOR).
const keySeparator = " "

func buildKey(topic, key string) string { return topic + "#" + key }

// BuildIndex indexes one record: its UNIQ_KEY and each KEYS token, under
// "topic#key" (IndexService.buildIndex). Rollback records and records
// already covered by the last file are skipped.
func (s *Service) BuildIndex(req *Request) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.lastFileLocked()
	if err != nil {
		return err
	}
	if req.CommitLogOffset < f.hdr.EndPhyOffset {
		return nil
	}
	if message.TransactionType(req.SysFlag) == message.SysFlagTransRollback {
		return nil
	}
	if s.topic.topic != req.Topic {
		s.topic = newTopicHash(req.Topic)
	}
	if req.UniqKey != "" {
		if f, err = s.putKeyLocked(f, s.topic.keyHash(req.UniqKey), req); err != nil {
			return err
		}
	}
	for rest := req.Keys; rest != ""; {
		var k string
		k, rest, _ = strings.Cut(rest, keySeparator)
		if k == "" {
			continue
		}
		if f, err = s.putKeyLocked(f, s.topic.keyHash(k), req); err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) putKeyLocked(f *File, keyHash int32, req *Request) (*File, error) {
	for {
		ok, err := f.putKey(keyHash, req.CommitLogOffset, req.StoreTimestamp)
		if err != nil {
			return nil, err
		}
		if ok {
			return f, nil
		}
		if ce := s.lg.Check(zap.DebugLevel, "index file is full, trying to create another one"); ce != nil {
			ce.Write(zap.String("file", f.path))
		}
		if f, err = s.lastFileLocked(); err != nil {
			return nil, err
		}
	}
}

// lastFileLocked returns the last file, creating a new one when there is
// none or the last is full (getAndCreateLastIndexFile). A full previous file
// is flushed in the background.
func (s *Service) lastFileLocked() (*File, error) {
	var prev *File
	var endPhy, endTS int64
	if n := len(s.files); n > 0 {
		last := s.files[n-1]
		if !last.IsWriteFull() {
			return last, nil
		}
		prev, endPhy, endTS = last, last.hdr.EndPhyOffset, last.hdr.EndTimestamp
	}
	if err := os.MkdirAll(s.cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	f, err := openFile(s.newFileName(), s.cfg.HashSlotNum, s.cfg.IndexNum, endPhy, endTS)
	if err != nil {
		return nil, err
	}
	mmap.LogReserveProblem(s.lg, f.path, f.reserveErr)
	if err := f.writeHeader(); err != nil {
		_ = f.destroy()
		return nil, err
	}
	s.files = append(s.files, f)
	if prev != nil {
		s.flushWG.Add(1)
		go s.flushFull(prev, prev.hdr.EndTimestamp)
	}
	return f, nil
}

// newFileName is the creation time as yyyyMMddHHmmssSSS (local time, like
// UtilAll.timeMillisToHumanString), made unique within the directory.
func (s *Service) newFileName() string {
	t := s.cfg.Now()
	for {
		p := filepath.Join(s.cfg.Dir, HumanTime(t))
		if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
			return p
		}
		t = t.Add(time.Millisecond)
	}
}

// HumanTime formats t as Java's UtilAll.timeMillisToHumanString.
func HumanTime(t time.Time) string {
	t = t.Local()
	return fmt.Sprintf("%04d%02d%02d%02d%02d%02d%03d", t.Year(), int(t.Month()), t.Day(),
		t.Hour(), t.Minute(), t.Second(), t.Nanosecond()/int(time.Millisecond))
}

// flushFull flushes a file that became full (so is no longer written; its
// header is already in the mapping) and records its end timestamp ts in the
// checkpoint (IndexService.flush). It runs without the lock: no fsync under
// a lock.
func (s *Service) flushFull(f *File, ts int64) {
	defer s.flushWG.Done()
	if err := f.f.Sync(); err != nil {
		s.lg.Warn("flush index file failed", zap.String("file", f.path), zap.Error(err))
		return
	}
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	if ts <= s.flushedTS {
		return // a newer full file was recorded first: never go back
	}
	s.flushedTS = ts
	if s.ckpt != nil && ts > 0 {
		s.ckpt.SetIndexMsgTimestamp(ts)
		if err := s.ckpt.Flush(); err != nil {
			s.lg.Warn("flush checkpoint failed", zap.Error(err))
		}
	}
}

// QueryOffset returns the physical offsets of records indexed under
// topic#key and stored within [begin, end], newest files first, at most
// min(maxNum, maxMsgsNumBatch) (IndexService.queryOffset).
func (s *Service) QueryOffset(topic, key string, maxNum int, begin, end int64) QueryResult {
	maxNum = min(maxNum, s.cfg.MaxMsgsNumBatch)
	res := QueryResult{PhyOffsets: make([]int64, 0, max(maxNum, 0))}
	s.mu.RLock()
	defer s.mu.RUnlock()
	full := buildKey(topic, key)
	for i := len(s.files) - 1; i >= 0; i-- {
		f := s.files[i]
		if i == len(s.files)-1 {
			res.IndexLastUpdateTimestamp = f.hdr.EndTimestamp
			res.IndexLastUpdatePhyoffset = f.hdr.EndPhyOffset
		}
		if f.isTimeMatched(begin, end) {
			res.PhyOffsets = f.selectPhyOffset(res.PhyOffsets, full, maxNum, begin, end)
		}
		if f.hdr.BeginTimestamp < begin || len(res.PhyOffsets) >= maxNum {
			break
		}
	}
	return res
}

// DeleteExpiredFile destroys the leading files (never the last one) whose
// entries all point below the CommitLog minimum offset.
func (s *Service) DeleteExpiredFile(offset int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for n < len(s.files)-1 && s.files[n].hdr.EndPhyOffset < offset {
		if err := s.files[n].destroy(); err != nil {
			s.lg.Warn("delete expired index file failed", zap.String("file", s.files[n].path), zap.Error(err))
			break
		}
		s.lg.Info("deleted expired index file", zap.String("file", s.files[n].path))
		n++
	}
	s.files = s.files[n:]
}

// Flush writes every file back to disk.
func (s *Service) Flush() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var err error
	for _, f := range s.files {
		err = errors.Join(err, f.flush())
	}
	return err
}

// Shutdown waits for background flushes and removals, flushes and unmaps
// every file.
func (s *Service) Shutdown() error {
	_ = s.WaitRemoved() // reported by WaitRemoved to the store's recovery
	s.flushWG.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	for _, f := range s.files {
		err = errors.Join(err, f.flush(), f.close())
	}
	s.files = nil
	return err
}

// Destroy waits for background flushes and removals and deletes every
// file.
func (s *Service) Destroy() error {
	s.flushWG.Wait()
	err := s.WaitRemoved()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.files {
		err = errors.Join(err, f.destroy())
	}
	s.files = nil
	return err
}
