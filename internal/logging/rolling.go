package logging

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// archiveDir is where rotated files go, as in Apache's logback fileNamePattern
// ${user.home}/logs/rocketmqlogs/otherdays/broker.%i.log.gz.
const archiveDir = "otherdays"

// rollingFile appends to dir/<base>.log and, when a write would take the file
// past maxSize, moves it to archive/<base>.1.log.gz (archive is
// <logs>/otherdays[/<brokerLogDir>]), shifting the older
// archives up to <base>.<maxIndex>.log.gz and dropping the oldest: logback's
// FixedWindowRollingPolicy with a SizeBasedTriggeringPolicy. The file is
// opened on the first write. Compression runs on the file's own goroutine,
// started with the first rotation and waited for by Close, so a writer
// never waits for gzip.
type rollingFile struct {
	dir, archive, base string
	maxSize            int64
	maxIndex           int

	// mu serialises writers on the file, as zapcore.Lock does for stderr:
	// it is held across the write of one line and a rotation's rename, never
	// across compression or an fsync.
	mu      sync.Mutex
	f       *os.File
	size    int64
	seq     int      // names pending files uniquely
	pending []string // rotated, not yet compressed; oldest first
	closed  bool
	err     error         // first compression error, returned by Close
	wake    chan struct{} // buffered(1): pending has work
	done    chan struct{} // closed when the compressor has exited; nil until it starts

	syncFile func(*os.File) error // fsync; tests slow it down
}

func newRollingFile(dir, archive, base string, maxSize int64, maxIndex int) *rollingFile {
	return &rollingFile{dir: dir, archive: archive, base: base, maxSize: maxSize, maxIndex: maxIndex, wake: make(chan struct{}, 1),
		syncFile: (*os.File).Sync}
}

func (r *rollingFile) path() string { return filepath.Join(r.dir, r.base+".log") }

// Write implements io.Writer; p is one encoded log line.
func (r *rollingFile) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return 0, os.ErrClosed
	}
	if r.f == nil {
		if err := r.open(); err != nil {
			return 0, err
		}
	}
	if r.size > 0 && r.size+int64(len(p)) > r.maxSize {
		if err := r.rotate(); err != nil {
			return 0, err
		}
	}
	n, err := r.f.Write(p)
	r.size += int64(n)
	return n, err
}

// Sync implements zapcore.WriteSyncer. The fsync runs outside mu, so
// writers (every logger, gnet's event loops' included) do not wait for the
// disk; a rotation or Close that closes the file meanwhile ends it quietly.
func (r *rollingFile) Sync() error {
	r.mu.Lock()
	f := r.f
	r.mu.Unlock()
	if f == nil {
		return nil
	}
	if err := r.syncFile(f); err != nil && !errors.Is(err, os.ErrClosed) {
		return err
	}
	return nil
}

func (r *rollingFile) open() error {
	f, err := os.OpenFile(r.path(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("logging: open %s: %w", r.path(), err)
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return fmt.Errorf("logging: stat %s: %w", r.path(), err)
	}
	r.f, r.size = f, fi.Size()
	return nil
}

// rotate moves the full file aside for the compressor and opens a new one.
// Called with mu held.
func (r *rollingFile) rotate() error {
	if err := os.MkdirAll(r.archive, 0o755); err != nil {
		return fmt.Errorf("logging: rotate %s: %w", r.path(), err)
	}
	if err := r.f.Close(); err != nil {
		return fmt.Errorf("logging: rotate %s: %w", r.path(), err)
	}
	r.f = nil
	r.seq++
	pending := filepath.Join(r.archive, r.base+".rolling."+strconv.Itoa(r.seq))
	if err := os.Rename(r.path(), pending); err != nil {
		return fmt.Errorf("logging: rotate %s: %w", r.path(), err)
	}
	r.pending = append(r.pending, pending)
	if r.done == nil {
		r.done = make(chan struct{})
		go r.compressor()
	}
	select {
	case r.wake <- struct{}{}:
	default:
	}
	return r.open()
}

// compressor archives pending files in rotation order until Close.
func (r *rollingFile) compressor() {
	defer close(r.done)
	for range r.wake {
		for {
			r.mu.Lock()
			if len(r.pending) == 0 {
				r.mu.Unlock()
				break
			}
			next := r.pending[0]
			r.pending = r.pending[1:]
			r.mu.Unlock()
			if err := r.archiveOne(next); err != nil {
				r.mu.Lock()
				r.err = firstErr(r.err, err)
				r.mu.Unlock()
			}
		}
	}
}

func firstErr(first, next error) error {
	if first != nil {
		return first
	}
	return next
}

// archiveOne shifts <base>.i.log.gz to i+1 (dropping maxIndex) and gzips src
// into <base>.1.log.gz through a temporary name, so a crash never leaves a
// truncated archive under a real name.
func (r *rollingFile) archiveOne(src string) error {
	name := func(i int) string {
		return filepath.Join(r.archive, r.base+"."+strconv.Itoa(i)+".log.gz")
	}
	if err := os.Remove(name(r.maxIndex)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for i := r.maxIndex - 1; i >= 1; i-- {
		if err := os.Rename(name(i), name(i+1)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if r.maxIndex < 1 {
		return os.Remove(src)
	}
	tmp := name(1) + ".tmp"
	if err := gzipFile(src, tmp); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, name(1)); err != nil {
		return err
	}
	return os.Remove(src)
}

func gzipFile(src, dst string) (err error) {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer func() { err = firstErr(err, out.Close()) }()
	zw := gzip.NewWriter(out)
	zw.Name = strings.TrimSuffix(filepath.Base(dst), ".gz.tmp")
	if _, err := io.Copy(zw, in); err != nil {
		return err
	}
	return zw.Close()
}

// Close closes the file, then waits for pending archives to be written.
// It is safe to call more than once.
func (r *rollingFile) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	var err error
	if r.f != nil {
		err = r.f.Close()
		r.f = nil
	}
	done := r.done
	close(r.wake)
	r.mu.Unlock()
	if done != nil {
		<-done
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return firstErr(err, r.err)
}
