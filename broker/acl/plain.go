package acl

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// Config says where the plain ACL files are, as 4.9.8 finds them.
type Config struct {
	// Home is rocketmq.home.dir / ROCKETMQ_HOME. Relative homes stay
	// relative in the file names the broker reports, as in Java.
	Home string
	// PlainFile is rocketmq.acl.plain.file, relative to Home; empty means
	// conf/plain_acl.yml.
	PlainFile string
	// WatchInterval is how often the files are checked for changes;
	// 0 means 500 ms (Java's AclFileWatchService polls every 5 s).
	WatchInterval time.Duration
	// Logger; nil: zap.NewNop().
	Logger *zap.Logger
}

// DataVersion is the version of one ACL file (counter, load or change time).
type DataVersion struct {
	Counter   int64
	Timestamp int64
}

// JSON is the DataVersion as fastjson writes it.
func (v DataVersion) JSON() string {
	return `{"counter":` + strconv.FormatInt(v.Counter, 10) + `,"timestamp":` + strconv.FormatInt(v.Timestamp, 10) + `}`
}

// account is one configured accessKey.
type account struct {
	accessKey              string
	sig                    *signer
	admin                  bool
	defTopicPerm, defGroup Perm
	perms                  map[string]Perm // topics and %RETRY%groups; nil when none configured
	white                  addrMatcher
	file                   string
}

// snapshot is the ACL state the request path reads; replaced, never
// mutated, once published.
type snapshot struct {
	global   []addrMatcher
	accounts map[string]*account
	files    []string               // in load order
	versions map[string]DataVersion // per file
	verOrder []string               // files in versions, insertion order
	version  DataVersion            // the default file's, as last loaded (Java's deprecated dataVersion)
}

// Plain is the PlainAccessValidator with its PlainPermissionManager.
type Plain struct {
	cfg         Config
	lg          *zap.Logger
	defaultFile string
	aclDir      string
	snap        atomic.Pointer[snapshot]

	// adminMu serialises reloads and admin rewrites of the files. It is
	// held across the ACL file reads and writes (as Java's synchronized
	// admin methods) and never taken on the request path.
	adminMu sync.Mutex
	stamps  map[string]fileStamp // guarded by adminMu
	pending map[string]fileStamp // a change seen once, not yet settled; guarded by adminMu

	startOnce sync.Once
	stopOnce  sync.Once
	stopCh    chan struct{} // closed by Shutdown to end the watcher
	done      chan struct{} // closed when the watcher has returned
}

// New loads the ACL files; it fails (the broker refuses to start) when
// there is no home or a file cannot be enforced as written.
func New(cfg Config) (*Plain, error) {
	if cfg.Home == "" {
		return nil, errors.New("acl: aclEnable=true but ROCKETMQ_HOME (rocketmqHome) is not set: no plain_acl.yml to enforce")
	}
	if cfg.PlainFile == "" {
		cfg.PlainFile = "conf/plain_acl.yml"
	}
	if cfg.WatchInterval <= 0 {
		cfg.WatchInterval = 500 * time.Millisecond
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	p := &Plain{cfg: cfg, lg: cfg.Logger, stopCh: make(chan struct{}), done: make(chan struct{})}
	p.defaultFile = filepath.Clean(cfg.Home + string(filepath.Separator) + cfg.PlainFile)
	p.aclDir = filepath.Clean(filepath.Join(cfg.Home, "conf", "acl"))
	if _, err := os.Stat(p.defaultFile); errors.Is(err, fs.ErrNotExist) {
		if f, err := os.OpenFile(p.defaultFile, os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			_ = f.Close()
		} else {
			return nil, fmt.Errorf("acl: create %s: %w", p.defaultFile, err)
		}
	}
	p.adminMu.Lock()
	defer p.adminMu.Unlock()
	s, err := p.load(DataVersion{Timestamp: time.Now().UnixMilli()})
	if err != nil {
		return nil, err
	}
	p.snap.Store(s)
	p.stamps = p.scanStamps()
	return p, nil
}

// DefaultFile is the default ACL file's name as the broker reports it.
func (p *Plain) DefaultFile() string { return p.defaultFile }

// aclFiles lists the *.yml and *.yaml files under conf/acl (absolute
// names, sorted) and then the default file when it exists.
func (p *Plain) aclFiles() []string {
	var files []string
	_ = filepath.WalkDir(p.aclDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil //nolint:nilerr // a missing or unreadable dir has no files, as in Java
		}
		if strings.HasSuffix(path, ".yml") || strings.HasSuffix(path, ".yaml") {
			if abs, err := filepath.Abs(path); err == nil {
				path = abs
			}
			if path != filepath.Join(p.cfg.Home, "conf", "tools.yml") {
				files = append(files, path)
			}
		}
		return nil
	})
	sort.Strings(files)
	if st, err := os.Stat(p.defaultFile); err == nil && !st.IsDir() {
		found := false
		for _, f := range files {
			found = found || f == p.defaultFile
		}
		if !found {
			files = append(files, p.defaultFile)
		}
	}
	return files
}

// load reads every ACL file into a new snapshot (PlainPermissionManager
// load). base is the version reported while the default file has none.
func (p *Plain) load(base DataVersion) (*snapshot, error) {
	s := &snapshot{accounts: map[string]*account{}, versions: map[string]DataVersion{}, version: base}
	s.files = p.aclFiles()
	now := time.Now().UnixMilli()
	for _, f := range s.files {
		doc, err := readDoc(f)
		if err != nil {
			return nil, fmt.Errorf("acl: %s: %w", f, err)
		}
		if doc == nil || len(doc.Content) == 0 {
			p.lg.Warn("no data in acl file", zap.String("file", f))
			continue
		}
		if err := p.loadDoc(s, f, doc, now); err != nil {
			return nil, fmt.Errorf("acl: %s: %w", f, err)
		}
	}
	if v, ok := s.versions[p.defaultFile]; ok {
		s.version = v
	}
	return s, nil
}
