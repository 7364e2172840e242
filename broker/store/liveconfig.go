package store

// Settings a running store takes from UPDATE_BROKER_CONFIG. Java's
// Configuration.update writes into the MessageStoreConfig object the store
// reads at use time; here the store keeps an immutable snapshot that
// UpdateConfig swaps, and the use-time readers of the keys below take it
// through liveConfig. Every other setting keeps its start-up value.

import (
	"fmt"
	"sync/atomic"
)

// liveConfigKeys are the MessageStoreConfig keys UpdateConfig applies:
// retention (CleanCommitLogService / CleanConsumeQueueService), the
// GetMessage transfer limits and the message size limit.
var liveConfigKeys = map[string]bool{
	"diskMaxUsedSpaceRatio": true, "fileReservedTime": true, "deleteWhen": true, "cleanFileForciblyEnable": true,
	"deleteCommitLogFilesInterval": true, "deleteConsumeQueueFilesInterval": true,
	"accessMessageInMemoryMaxRatio": true, "maxTransferBytesOnMessageInMemory": true,
	"maxTransferCountOnMessageInMemory": true, "maxTransferBytesOnMessageInDisk": true,
	"maxTransferCountOnMessageInDisk": true, "maxMessageSize": true,
}

// IsLiveConfigKey reports whether UpdateConfig applies key to a running store.
func IsLiveConfigKey(key string) bool { return liveConfigKeys[key] }

// liveCfg holds the snapshot; nil until the first UpdateConfig.
type liveCfg struct {
	p atomic.Pointer[MessageStoreConfig]
}

// LiveConfig is the configuration the running store uses for the live keys
// (its start-up configuration until UpdateConfig); do not modify it.
func (s *DefaultMessageStore) LiveConfig() *MessageStoreConfig { return s.liveConfig() }

// UpdateConfig makes next's values of the live keys those of the running
// store; its other settings are ignored. next is copied.
func (s *DefaultMessageStore) UpdateConfig(next *MessageStoreConfig) error {
	if err := validate(next); err != nil {
		return err
	}
	if next.MaxMessageSize <= 0 {
		return fmt.Errorf("store: maxMessageSize %d must be positive", next.MaxMessageSize)
	}
	cp := *next
	s.live.p.Store(&cp)
	s.cl.SetMaxMessageSize(cp.MaxMessageSize)
	return nil
}

func (s *DefaultMessageStore) liveConfig() *MessageStoreConfig {
	if c := s.live.p.Load(); c != nil {
		return c
	}
	return s.cfg
}
