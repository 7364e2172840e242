package logging

import (
	"errors"
	"path/filepath"
	"strings"
	"sync"

	"go.uber.org/zap/zapcore"
)

// fileSpec is one Apache log file with its logback rolling policy.
type fileSpec struct {
	name      string // without .log
	maxSizeMB int
	maxIndex  int // archives kept in otherdays/
}

// Apache 4.9.8 distribution/conf/logback_broker.xml and logback_namesrv.xml.
var (
	brokerFile      = fileSpec{"broker", 128, 20}
	storeFile       = fileSpec{"store", 128, 10}
	remotingFile    = fileSpec{"remoting", 100, 10}
	transactionFile = fileSpec{"transaction", 100, 10}
	statsFile       = fileSpec{"stats", 100, 5}
	lockFile        = fileSpec{"lock", 100, 5}
	filterFile      = fileSpec{"filter", 100, 10}
	watermarkFile   = fileSpec{"watermark", 100, 10}
	protectionFile  = fileSpec{"protection", 100, 10}
	namesrvFile     = fileSpec{"namesrv", 100, 5}
)

// segmentFiles maps a logger-name segment to its broker-side file.
var segmentFiles = map[string]fileSpec{
	"store": storeFile, "ha": storeFile,
	"remoting": remotingFile, "gnet": remotingFile,
	"transaction": transactionFile, "stats": statsFile, "rebalance": lockFile,
	"filter": filterFile, "watermark": watermarkFile, "protection": protectionFile,
}

// route names the file for a logger name.
func route(role Role, loggerName string) fileSpec {
	if role == RoleNamesrv || loggerName == "namesrv" || strings.HasPrefix(loggerName, "namesrv.") {
		return namesrvFile
	}
	for seg := range strings.SplitSeq(loggerName, ".") {
		if f, ok := segmentFiles[seg]; ok {
			return f
		}
	}
	return brokerFile
}

// router is a zapcore.Core that sends each entry to its file's core.
type router struct {
	shared *files
	fields []zapcore.Field
	zapcore.LevelEnabler
}

// files owns the open files; cores are made on first use of a file.
type files struct {
	dir, sub string // log root and Apache's ${brokerLogDir}
	role     Role
	maxSize  int64
	enc      zapcore.Encoder
	level    zapcore.LevelEnabler

	mu     sync.Mutex // guards cores, rolls, closed; never held while writing
	cores  map[string]zapcore.Core
	rolls  []*rollingFile
	closed bool // late lines after Close are dropped
}

func newRouter(dir, sub string, role Role, maxSize int64, enc zapcore.Encoder, level zapcore.LevelEnabler) *router {
	f := &files{dir: dir, sub: sub, role: role, maxSize: maxSize, enc: enc, level: level, cores: map[string]zapcore.Core{}}
	return &router{shared: f, LevelEnabler: level}
}

func (f *files) core(spec fileSpec) zapcore.Core {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c, ok := f.cores[spec.name]; ok {
		return c
	}
	if f.closed {
		return zapcore.NewNopCore()
	}
	size := int64(spec.maxSizeMB) << 20
	if f.maxSize > 0 {
		size = f.maxSize
	}
	roll := newRollingFile(filepath.Join(f.dir, f.sub), filepath.Join(f.dir, archiveDir, f.sub), spec.name, size, spec.maxIndex)
	c := zapcore.NewCore(f.enc.Clone(), roll, f.level)
	f.cores[spec.name], f.rolls = c, append(f.rolls, roll)
	return c
}

// With implements zapcore.Core.
func (r *router) With(fields []zapcore.Field) zapcore.Core {
	all := make([]zapcore.Field, 0, len(r.fields)+len(fields))
	return &router{shared: r.shared, fields: append(append(all, r.fields...), fields...), LevelEnabler: r.LevelEnabler}
}

// Check implements zapcore.Core.
func (r *router) Check(ent zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if !r.Enabled(ent.Level) {
		return ce
	}
	return ce.AddCore(ent, r)
}

// Write implements zapcore.Core.
func (r *router) Write(ent zapcore.Entry, fields []zapcore.Field) error {
	c := r.shared.core(route(r.shared.role, ent.LoggerName))
	if len(r.fields) > 0 {
		fields = append(append(make([]zapcore.Field, 0, len(r.fields)+len(fields)), r.fields...), fields...)
	}
	return c.Write(ent, fields)
}

// Sync implements zapcore.Core: fsync every open file.
func (r *router) Sync() error {
	f := r.shared
	f.mu.Lock()
	rolls := f.rolls
	f.mu.Unlock()
	var errs []error
	for _, l := range rolls {
		errs = append(errs, l.Sync())
	}
	return errors.Join(errs...)
}

func (r *router) close() error {
	f := r.shared
	f.mu.Lock()
	rolls := f.rolls
	f.rolls, f.cores, f.closed = nil, map[string]zapcore.Core{}, true
	f.mu.Unlock()
	var errs []error
	for _, l := range rolls {
		errs = append(errs, l.Close())
	}
	return errors.Join(errs...)
}
