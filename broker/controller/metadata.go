package controller

// The broker identity files of 5.x controller mode (store module
// ha/autoswitch BrokerMetadata, TempBrokerMetadata, MetadataFile): the id
// the controller assigned is kept in <storePathRootDir>/brokerIdentity as
// "cluster#brokerName#brokerId"; while it is being applied for, the
// candidate lives in brokerIdentity-temp as
// "cluster#brokerName#brokerId#registerCheckCode". Same names and text, so
// a 5.x store directory keeps its id here and the reverse.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrBadMetadata reports a metadata file whose text cannot be parsed.
var ErrBadMetadata = errors.New("controller: bad broker metadata file")

// Metadata is the content of brokerIdentity (CheckCode empty) or of
// brokerIdentity-temp (CheckCode set).
type Metadata struct {
	ClusterName string
	BrokerName  string
	BrokerID    int64
	CheckCode   string // registerCheckCode: "<brokerAddr>;<unix millis>"; temp file only
}

// MetadataPath is 5.x MessageStoreConfig.getStorePathBrokerIdentity's
// default: <storePathRootDir>/brokerIdentity.
func MetadataPath(storeRoot string) string { return filepath.Join(storeRoot, "brokerIdentity") }

// TempMetadataPath is the temp file next to path ("-temp" appended, as 5.x).
func TempMetadataPath(path string) string { return path + "-temp" }

// encode writes the '#'-joined text; the temp form carries the check code.
func (m Metadata) encode(temp bool) string {
	s := m.ClusterName + "#" + m.BrokerName + "#" + strconv.FormatInt(m.BrokerID, 10)
	if temp {
		s += "#" + m.CheckCode
	}
	return s
}

func decodeMetadata(s string, temp bool) (Metadata, error) {
	parts := strings.Split(s, "#")
	want := 3
	if temp {
		want = 4
	}
	if len(parts) < want {
		return Metadata{}, fmt.Errorf("%w: %d fields in %q", ErrBadMetadata, len(parts), s)
	}
	id, err := strconv.ParseInt(strings.TrimSpace(parts[2]), 10, 64)
	if err != nil {
		return Metadata{}, fmt.Errorf("%w: brokerId %q", ErrBadMetadata, parts[2])
	}
	m := Metadata{ClusterName: parts[0], BrokerName: parts[1], BrokerID: id}
	if temp {
		m.CheckCode = parts[3]
	}
	if m.ClusterName == "" || m.BrokerName == "" || (temp && m.CheckCode == "") {
		return Metadata{}, fmt.Errorf("%w: empty field in %q", ErrBadMetadata, s)
	}
	return m, nil
}

// ReadMetadata reads path (temp: the brokerIdentity-temp form). ok is
// false when the file does not exist.
func ReadMetadata(path string, temp bool) (m Metadata, ok bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Metadata{}, false, nil
	}
	if err != nil {
		return Metadata{}, false, err
	}
	m, err = decodeMetadata(string(data), temp)
	if err != nil {
		return Metadata{}, false, fmt.Errorf("%s: %w", path, err)
	}
	return m, true, nil
}

// WriteMetadata replaces path atomically: write path.tmp, fsync, rename,
// fsync the directory.
func WriteMetadata(path string, m Metadata, temp bool) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(m.encode(temp))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("controller: write %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// RemoveMetadata deletes path; a missing file is not an error.
func RemoveMetadata(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
