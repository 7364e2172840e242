package configfile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Source tells where Load found the data it decoded.
type Source int

// Where Load found its data.
const (
	SourceNone Source = iota // neither the file nor its .bak had content
	SourceMain               // the file itself
	SourceBak                // the .bak copy, because the file was missing, empty or bad
	// SourceDiscarded: the file was unreadable or rejected and there is no
	// .bak; like Java the caller starts empty, but should say so loudly.
	SourceDiscarded
)

// String names the source for logs.
func (s Source) String() string {
	switch s {
	case SourceMain:
		return "main"
	case SourceBak:
		return "bak"
	case SourceDiscarded:
		return "discarded"
	default:
		return "none"
	}
}

// ErrCorrupt is returned when the .bak is needed but cannot be read or decoded.
var ErrCorrupt = errors.New("configfile: file unusable and backup unreadable")

// Load reads path and hands its content to decode; when the file is missing,
// empty or rejected by decode it tries path+".bak" instead, as
// ConfigManager.load does. A missing or empty .bak yields (SourceNone, nil),
// or (SourceDiscarded, nil) when the main file existed but was unusable:
// Java then starts with an empty table too. Only a .bak that exists but
// cannot be read or decoded is an error (ErrCorrupt); Java's load returns
// false there and the broker refuses to start.
func Load(path string, decode func(data []byte) error) (Source, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return loadBak(path, decode, err)
	}
	if len(data) == 0 {
		return loadBak(path, decode, nil)
	}
	if derr := decode(data); derr != nil {
		return loadBak(path, decode, fmt.Errorf("configfile: decode %s: %w", path, derr))
	}
	return SourceMain, nil
}

func loadBak(path string, decode func([]byte) error, mainErr error) (Source, error) {
	bak := path + ".bak"
	data, err := os.ReadFile(bak)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return SourceNone, errors.Join(ErrCorrupt, mainErr, err)
	}
	if len(data) == 0 {
		if mainErr != nil {
			return SourceDiscarded, nil
		}
		return SourceNone, nil
	}
	if derr := decode(data); derr != nil {
		return SourceNone, errors.Join(ErrCorrupt, mainErr, fmt.Errorf("configfile: decode %s: %w", bak, derr))
	}
	return SourceBak, nil
}

// Persist replaces path with data crash-safely: data goes to path+".tmp" and
// is fsync'd, the previous content of path (if any) is copied to path+".bak",
// then the temp file is renamed over path and the directory fsync'd.
// Missing parent directories are created.
func Persist(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("configfile: mkdir %s: %w", dir, err)
	}
	tmp := path + ".tmp"
	if err := writeSync(tmp, data); err != nil {
		return err
	}
	prev, err := os.ReadFile(path)
	switch {
	case err == nil:
		if err := writeSync(path+".bak", prev); err != nil {
			return err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("configfile: read previous %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("configfile: rename %s: %w", tmp, err)
	}
	return syncDir(dir)
}

// writeSync writes data to name (truncating) and fsyncs it.
func writeSync(name string, data []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("configfile: open %s: %w", name, err)
	}
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		return fmt.Errorf("configfile: write %s: %w", name, err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("configfile: open dir %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		return fmt.Errorf("configfile: sync dir %s: %w", dir, err)
	}
	return nil
}

// Equal reports whether the file at path already holds exactly data; managers
// may use it to skip rewriting an unchanged file.
func Equal(path string, data []byte) bool {
	cur, err := os.ReadFile(path)
	return err == nil && bytes.Equal(cur, data)
}
