package logging

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// Role selects the default file: broker.log or namesrv.log.
type Role int

// The two server roles.
const (
	RoleBroker Role = iota
	RoleNamesrv
)

// Formats accepted by Options.Format.
const (
	FormatAuto    = ""
	FormatConsole = "console"
	FormatJSON    = "json"
)

// ErrBadOption reports an unknown format or level.
var ErrBadOption = errors.New("logging: bad option")

// Options configure New. The zero value logs Info and above to stderr,
// human-readable on a terminal or the systemd journal and JSON otherwise.
type Options struct {
	Format string // "console", "json" or "" (auto)
	Level  string // "debug", "info", "warn" or "error"; "" is info
	// Dir enables file output into this directory; File enables it into
	// DefaultDir() when Dir is empty.
	Dir  string
	File bool
	// SubDir is Apache's ${brokerLogDir} (isolateLogEnable): live files go
	// to <dir>/<SubDir>/, archives to <dir>/otherdays/<SubDir>/.
	SubDir string
	Role   Role
	// MaxFileSize overrides every file's rotation size in bytes (Apache:
	// 100 or 128 MiB).
	MaxFileSize int64
	// Stderr receives console output; nil is os.Stderr.
	Stderr io.Writer
}

// RegisterFlags adds -logFormat, -logLevel, -logDir and -logFile to fs.
func (o *Options) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.Format, "logFormat", o.Format, "Log encoding: console or json (default: console on a terminal or the systemd journal, else json)")
	fs.StringVar(&o.Level, "logLevel", "info", "Log level: debug, info, warn or error")
	fs.StringVar(&o.Dir, "logDir", o.Dir, "Write rotated log files (broker.log, store.log…) into this directory")
	fs.BoolVar(&o.File, "logFile", o.File, "Write rotated log files into -logDir, default ~/logs/rocketmqlogs as Apache RocketMQ does")
}

// FileOptions are the logging keys of a -c properties file; bind them with
// the props binder, then Options.ApplyFile.
type FileOptions struct {
	Format string `prop:"logFormat"`
	Level  string `prop:"logLevel"`
	Dir    string `prop:"logDir"`
	File   bool   `prop:"logFile"`
}

// FileOptions returns o's current settings (the flag defaults or values) as
// the starting point for the file's keys.
func (o *Options) FileOptions() *FileOptions {
	return &FileOptions{Format: o.Format, Level: o.Level, Dir: o.Dir, File: o.File}
}

// ApplyFile takes each setting from f unless its flag was given on the
// command line: defaults < -c file < flags.
func (o *Options) ApplyFile(f *FileOptions, fs *flag.FlagSet) {
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if !set["logFormat"] {
		o.Format = f.Format
	}
	if !set["logLevel"] {
		o.Level = f.Level
	}
	if !set["logDir"] {
		o.Dir = f.Dir
	}
	if !set["logFile"] {
		o.File = f.File
	}
}

// BrokerLogDir is BrokerStartup's ${brokerLogDir}, for Options.SubDir: ""
// unless isolateLogEnable, then brokerName_brokerId, or
// brokerName_dLegerSelfId on a DLedger commit log, so that several brokers
// on one host log apart.
func BrokerLogDir(isolate, dleger bool, brokerName string, brokerID int64, dLegerSelfID string) string {
	switch {
	case !isolate:
		return ""
	case dleger:
		return brokerName + "_" + dLegerSelfID
	}
	return brokerName + "_" + strconv.FormatInt(brokerID, 10)
}

// DefaultDir is ${user.home}/logs/rocketmqlogs, where Apache's logback
// configuration writes.
func DefaultDir() string { return filepath.Join(homeDir(), "logs", "rocketmqlogs") }

// homeDir is Java's user.home: $HOME, or the working directory without one.
func homeDir() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return "."
	}
	return home
}

// New builds the logger and returns a func that closes its files.
func New(o Options) (*zap.Logger, func() error, error) {
	level, err := parseLevel(o.Level)
	if err != nil {
		return nil, nil, err
	}
	stderr := o.Stderr
	if stderr == nil {
		stderr = os.Stderr
	}
	format, err := resolveFormat(o.Format, stderr)
	if err != nil {
		return nil, nil, err
	}
	console := func(l zapcore.Level) zapcore.Core {
		return zapcore.NewCore(encoder(format), zapcore.Lock(zapcore.AddSync(stderr)), l)
	}
	dir := o.dir()
	if dir == "" {
		return build(console(level), stderr), func() error { return nil }, nil
	}
	if err := os.MkdirAll(filepath.Join(dir, o.SubDir), 0o755); err != nil {
		return nil, nil, fmt.Errorf("logging: create %s: %w", dir, err)
	}
	fileFormat := o.Format
	if fileFormat == FormatAuto {
		fileFormat = FormatConsole // Apache's files are plain text lines
	}
	r := newRouter(dir, o.SubDir, o.Role, o.MaxFileSize, encoder(fileFormat), level)
	// With files on, stderr keeps only errors so that a supervisor still
	// sees why the process failed; everything else is in the files.
	core := zapcore.NewTee(r, console(max(level, zapcore.ErrorLevel)))
	return build(core, stderr), r.close, nil
}

// dir is the file output directory, "" for none.
func (o *Options) dir() string {
	if rest, ok := strings.CutPrefix(o.Dir, "~/"); ok {
		return filepath.Join(homeDir(), rest) // properties files get no shell expansion
	}
	if o.Dir == "" && o.File {
		return DefaultDir()
	}
	return o.Dir
}

// build keeps what zap.NewProduction gave before: the caller, and sampling
// (per message text, each second the first 100 lines then every 100th), so
// that a client repeating a bad request cannot flood the disk.
func build(core zapcore.Core, stderr io.Writer) *zap.Logger {
	core = zapcore.NewSamplerWithOptions(core, time.Second, 100, 100)
	return zap.New(core, zap.AddCaller(), zap.ErrorOutput(zapcore.AddSync(stderr)))
}

func parseLevel(s string) (zapcore.Level, error) {
	switch strings.ToLower(s) {
	case "", "info":
		return zapcore.InfoLevel, nil
	case "debug":
		return zapcore.DebugLevel, nil
	case "warn", "warning":
		return zapcore.WarnLevel, nil
	case "error":
		return zapcore.ErrorLevel, nil
	}
	return 0, fmt.Errorf("%w: level %q (want debug, info, warn or error)", ErrBadOption, s)
}

func resolveFormat(s string, stderr io.Writer) (string, error) {
	switch strings.ToLower(s) {
	case FormatConsole:
		return FormatConsole, nil
	case FormatJSON:
		return FormatJSON, nil
	case FormatAuto:
		if f, ok := stderr.(*os.File); ok && humanReader(f) {
			return FormatConsole, nil
		}
		return FormatJSON, nil
	}
	return "", fmt.Errorf("%w: format %q (want console or json)", ErrBadOption, s)
}

func encoder(format string) zapcore.Encoder {
	if format == FormatJSON {
		return zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig())
	}
	cfg := zap.NewDevelopmentEncoderConfig()
	cfg.EncodeTime = zapcore.TimeEncoderOfLayout("2006-01-02 15:04:05.000")
	cfg.StacktraceKey = "" // stacks only on request (zap.Stack), as in JSON
	return zapcore.NewConsoleEncoder(cfg)
}
