// Package storecheck is an offline consistency checker for a store
// directory, run after store tests (like bbolt's btesting post-test check).
// It reads the files directly, independently of the store code:
//
//   - every consume-queue unit (up to the first invalid one; the blank
//     pre-fill units {0, MaxInt32, 0} skipped) points at a CommitLog record
//     whose topic, queue id, queue offset, size and tags code match (for
//     SCHEDULE_TOPIC_XXXX records with a DELAY level the tags code is a
//     delivery time, so it must only be >= the store time);
//   - every index entry points at a record that has a key (UNIQ_KEY or a
//     KEYS token) whose "topic#key" hash equals the entry's hash;
//   - units and entries pointing below the first CommitLog file (expired)
//     are ignored.
//
// Usage:
//
//	if errs := storecheck.Check(storecheck.Config{Root: dir, CommitLogFileSize: 1 << 20,
//		ConsumeQueueFileSize: 2000, HashSlotNum: 64, IndexNum: 256}); len(errs) > 0 { t.Fatal(errs) }
package storecheck

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/rocketmq-go/rmq/internal/message"
)

// Config locates the store and gives its file geometry.
type Config struct {
	Root                 string // storePathRootDir
	CommitLogDir         string // default Root/commitlog
	CommitLogFileSize    int
	ConsumeQueueFileSize int
	HashSlotNum          int
	IndexNum             int
	// MaxErrors stops the check after that many problems (default 20).
	MaxErrors int
}

type checker struct {
	cfg   Config
	files map[int64][]byte // CommitLog file start -> content
	minCL int64
	errs  []error
}

// Check returns the inconsistencies found (nil when none).
func Check(cfg Config) []error {
	if cfg.CommitLogDir == "" {
		cfg.CommitLogDir = filepath.Join(cfg.Root, "commitlog")
	}
	if cfg.MaxErrors <= 0 {
		cfg.MaxErrors = 20
	}
	c := &checker{cfg: cfg, files: map[int64][]byte{}, minCL: math.MaxInt64}
	if err := c.loadCommitLog(); err != nil {
		return []error{err}
	}
	c.checkConsumeQueues()
	c.checkIndex()
	return c.errs
}

func (c *checker) fail(format string, args ...any) bool {
	c.errs = append(c.errs, fmt.Errorf(format, args...))
	return len(c.errs) < c.cfg.MaxErrors
}

func (c *checker) loadCommitLog() error {
	ents, err := os.ReadDir(c.cfg.CommitLogDir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	for _, e := range ents {
		start, err := strconv.ParseInt(e.Name(), 10, 64)
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(c.cfg.CommitLogDir, e.Name()))
		if err != nil {
			return err
		}
		c.files[start] = b
		c.minCL = min(c.minCL, start)
	}
	return nil
}

// record decodes the record at phy (size bytes when size > 0).
func (c *checker) record(phy int64, size int32) (*message.MessageExt, error) {
	fs := int64(c.cfg.CommitLogFileSize)
	b, ok := c.files[phy-phy%fs]
	if !ok {
		return nil, fmt.Errorf("no commitlog file for offset %d", phy)
	}
	pos := int(phy % fs)
	if pos+8 > len(b) {
		return nil, fmt.Errorf("offset %d beyond its file", phy)
	}
	total := int32(binary.BigEndian.Uint32(b[pos:]))
	if size > 0 && total != size {
		return nil, fmt.Errorf("record at %d has size %d, unit says %d", phy, total, size)
	}
	if total < 8 || pos+int(total) > len(b) {
		return nil, fmt.Errorf("record at %d has impossible size %d", phy, total)
	}
	m, err := message.DecodeRecord(b[pos:pos+int(total)], true)
	if err != nil {
		return nil, fmt.Errorf("record at %d: %w", phy, err)
	}
	if m.CommitLogOffset != phy {
		return nil, fmt.Errorf("record at %d says physical offset %d", phy, m.CommitLogOffset)
	}
	return m, nil
}

func (c *checker) checkConsumeQueues() {
	root := filepath.Join(c.cfg.Root, "consumequeue")
	topics, _ := os.ReadDir(root)
	for _, t := range topics {
		queues, _ := os.ReadDir(filepath.Join(root, t.Name()))
		for _, q := range queues {
			id, err := strconv.ParseInt(q.Name(), 10, 32)
			if err != nil {
				continue
			}
			if !c.checkQueue(filepath.Join(root, t.Name(), q.Name()), t.Name(), int32(id)) {
				return
			}
		}
	}
}

// checkQueue checks one queue's units; false when MaxErrors is reached.
func (c *checker) checkQueue(dir, topic string, queueID int32) bool {
	names := sortedNames(dir)
	for _, n := range names {
		start, err := strconv.ParseInt(n, 10, 64)
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return c.fail("%s: %w", dir, err)
		}
		for i := 0; i+20 <= len(b); i += 20 {
			phy := int64(binary.BigEndian.Uint64(b[i:]))
			size := int32(binary.BigEndian.Uint32(b[i+8:]))
			tags := int64(binary.BigEndian.Uint64(b[i+12:]))
			if phy == 0 && size == math.MaxInt32 && tags == 0 {
				continue // pre-fill blank
			}
			if phy < 0 || size <= 0 {
				return true // end of queue
			}
			if phy < c.minCL {
				continue
			}
			off := (start + int64(i)) / 20
			if !c.checkUnit(topic, queueID, off, phy, size, tags) {
				return false
			}
		}
	}
	return true
}

func (c *checker) checkUnit(topic string, queueID int32, off, phy int64, size int32, tags int64) bool {
	m, err := c.record(phy, size)
	if err != nil {
		return c.fail("cq %s-%d@%d: %w", topic, queueID, off, err)
	}
	switch {
	case m.Topic != topic || m.QueueID != queueID:
		return c.fail("cq %s-%d@%d points at %s-%d", topic, queueID, off, m.Topic, m.QueueID)
	case m.QueueOffset != off:
		return c.fail("cq %s-%d@%d points at queue offset %d", topic, queueID, off, m.QueueOffset)
	case topic == message.ScheduleTopic && m.Properties[message.PropertyDelayTimeLevel] != "":
		if tags < m.StoreTimestamp {
			return c.fail("cq %s-%d@%d delivery time %d before store time %d", topic, queueID, off, tags, m.StoreTimestamp)
		}
	case tags != message.TagsCode(m.Properties[message.PropertyTags]):
		return c.fail("cq %s-%d@%d tags code %d, record tags %q", topic, queueID, off, tags, m.Properties[message.PropertyTags])
	}
	return true
}

func sortedNames(dir string) []string {
	ents, _ := os.ReadDir(dir)
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

func (c *checker) checkIndex() {
	dir := filepath.Join(c.cfg.Root, "index")
	slots, num := c.cfg.HashSlotNum, c.cfg.IndexNum
	for _, n := range sortedNames(dir) {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil || len(b) != 40+slots*4+num*20 {
			if !c.fail("index %s: unreadable or wrong size", n) {
				return
			}
			continue
		}
		count := int(int32(binary.BigEndian.Uint32(b[36:])))
		for e := 1; e < count && e < num; e++ {
			p := 40 + slots*4 + e*20
			hash := int32(binary.BigEndian.Uint32(b[p:]))
			phy := int64(binary.BigEndian.Uint64(b[p+4:]))
			if phy < c.minCL {
				continue
			}
			if !c.checkEntry(n, e, hash, phy) {
				return
			}
		}
	}
}

func (c *checker) checkEntry(file string, e int, hash int32, phy int64) bool {
	m, err := c.record(phy, 0)
	if err != nil {
		return c.fail("index %s entry %d: %w", file, e, err)
	}
	keys := strings.Split(m.Properties[message.PropertyKeys], " ")
	if u := m.Properties[message.PropertyUniqClientMessageIDKeyidx]; u != "" {
		keys = append(keys, u)
	}
	for _, k := range keys {
		if k != "" && keyHash(m.Topic+"#"+k) == hash {
			return true
		}
	}
	return c.fail("index %s entry %d: record at %d (%s) has no key with hash %d", file, e, phy, m.Topic, hash)
}

// keyHash is |String.hashCode| with MIN_VALUE -> 0, written here again so
// the checker does not trust the index package.
func keyHash(s string) int32 {
	h := message.JavaStringHash(s)
	if h == math.MinInt32 {
		return 0
	}
	if h < 0 {
		return -h
	}
	return h
}
