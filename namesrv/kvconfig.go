package namesrv

// This file mirrors Java's org.apache.rocketmq.namesrv.kvconfig.KVConfigManager.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	jsoniter "github.com/json-iterator/go"
	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/remoting/body"
)

// NamespaceOrderTopicConfig is the KV namespace of ordered-topic layouts
// (NamesrvUtil.NAMESPACE_ORDER_TOPIC_CONFIG).
const NamespaceOrderTopicConfig = "ORDER_TOPIC_CONFIG"

// KVConfigManager holds namespace → key → value, persisted to one JSON file
// ({"configTable":{"ns":{"k":"v"}}}) after every change.
type KVConfigManager struct {
	path string
	lg   *zap.Logger

	mu    sync.RWMutex                 // guards table
	table map[string]map[string]string // namespace → key → value

	persistMu sync.Mutex // serializes file writes; taken before mu, never inside it
}

// NewKVConfigManager returns an empty manager persisting to path.
func NewKVConfigManager(path string, lg *zap.Logger) *KVConfigManager {
	if lg == nil {
		lg = zap.NewNop()
	}
	return &KVConfigManager{path: path, lg: lg, table: map[string]map[string]string{}}
}

// Load reads the file if it exists. A missing file is not an error.
func (k *KVConfigManager) Load() error {
	data, err := os.ReadFile(k.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("namesrv: read kv config %s: %w", k.path, err)
	}
	if len(data) == 0 {
		return nil
	}
	norm, err := body.Normalize(data)
	if err != nil {
		return fmt.Errorf("namesrv: parse kv config %s: %w", k.path, err)
	}
	var w struct {
		ConfigTable map[string]map[string]string `json:"configTable"`
	}
	if err := jsoniter.ConfigCompatibleWithStandardLibrary.Unmarshal(norm, &w); err != nil {
		return fmt.Errorf("namesrv: parse kv config %s: %w", k.path, err)
	}
	k.mu.Lock()
	for ns, kv := range w.ConfigTable {
		if kv != nil {
			k.table[ns] = kv
		}
	}
	k.mu.Unlock()
	return nil
}

// Put sets a value and persists.
func (k *KVConfigManager) Put(namespace, key, value string) {
	k.mu.Lock()
	ns := k.table[namespace]
	if ns == nil {
		ns = map[string]string{}
		k.table[namespace] = ns
	}
	ns[key] = value
	k.mu.Unlock()
	k.lg.Info("put kv config", zap.String("namespace", namespace), zap.String("key", key), zap.String("value", value))
	k.persist()
}

// Delete removes a value and persists (Java persists even when nothing changed).
func (k *KVConfigManager) Delete(namespace, key string) {
	k.mu.Lock()
	if ns := k.table[namespace]; ns != nil {
		delete(ns, key)
	}
	k.mu.Unlock()
	k.persist()
}

// Get returns a value and whether it exists.
func (k *KVConfigManager) Get(namespace, key string) (string, bool) {
	k.mu.RLock()
	defer k.mu.RUnlock()
	v, ok := k.table[namespace][key]
	return v, ok
}

// ListByNamespace returns the KVTable body of a namespace, or nil when the
// namespace does not exist (an emptied namespace still encodes, as in Java).
func (k *KVConfigManager) ListByNamespace(namespace string) []byte {
	k.mu.RLock()
	defer k.mu.RUnlock()
	ns, ok := k.table[namespace]
	if !ok {
		return nil
	}
	t := &body.KVTable{Table: ns}
	return t.Encode()
}

// encode writes the file content in Java's shape and key order.
func (k *KVConfigManager) encode() []byte {
	k.mu.RLock()
	defer k.mu.RUnlock()
	names := make([]string, 0, len(k.table))
	for ns := range k.table {
		names = append(names, ns)
	}
	body.SortJavaHashOrder(names, body.JavaHashMapCapacity(len(names), defaultMapCap))
	dst := []byte(`{"configTable":{`)
	for i, ns := range names {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = body.AppendKey(dst, ns, false)
		dst = append(dst, (&body.KVTable{Table: k.table[ns]}).Encode()[len(`{"table":`):]...)
		dst = dst[:len(dst)-1] // drop the KVTable wrapper's closing brace
	}
	return append(dst, "}}"...)
}

// persist writes the file as MixAll.string2File does (tmp file, previous
// content to .bak, rename), with an fsync before the rename. Errors are logged.
func (k *KVConfigManager) persist() {
	k.persistMu.Lock()
	defer k.persistMu.Unlock()
	if err := writeFileAtomic(k.path, k.encode()); err != nil {
		k.lg.Error("persist kv config failed", zap.String("path", k.path), zap.Error(err))
	}
}

// writeFileAtomic replaces path with data: path.tmp written and fsynced,
// the old content copied to path.bak, then path.tmp renamed over path.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if prev, err := os.ReadFile(path); err == nil {
		if err := os.WriteFile(path+".bak", prev, 0o644); err != nil {
			return err
		}
	}
	return os.Rename(tmp, path)
}
