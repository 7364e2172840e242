package store

import (
	"fmt"
	"os"
	"path/filepath"
)

// BrokerRole is Java's BrokerRole enum, stored by name.
type BrokerRole string

// BrokerRole values.
const (
	AsyncMaster BrokerRole = "ASYNC_MASTER"
	SyncMaster  BrokerRole = "SYNC_MASTER"
	Slave       BrokerRole = "SLAVE"
)

// FlushDiskType is Java's FlushDiskType enum, stored by name.
type FlushDiskType string

// FlushDiskType values.
const (
	AsyncFlush FlushDiskType = "ASYNC_FLUSH"
	SyncFlush  FlushDiskType = "SYNC_FLUSH"
)

// CQStoreUnitSize is ConsumeQueue.CQ_STORE_UNIT_SIZE.
const CQStoreUnitSize = 20

// MessageStoreConfig mirrors org.apache.rocketmq.store.config.MessageStoreConfig
// of 4.9.8: one field per Java field, tagged with the key that
// MixAll.properties2Object derives from its setter. Defaults (see
// NewMessageStoreConfig) are the Java initialisers; "unset" means Java null.
// Times are milliseconds, fileReservedTime hours, as in Java.
type MessageStoreConfig struct {
	// StorePathRootDir: Java default System.getProperty("user.home") + File.separator + "store".
	StorePathRootDir string `prop:"storePathRootDir,important"`
	// StorePathCommitLog: Java default null.
	StorePathCommitLog string `prop:"storePathCommitLog,important"`
	// StorePathDLedgerCommitLog: Java default null.
	StorePathDLedgerCommitLog string `prop:"storePathDLedgerCommitLog,important"`
	// ReadOnlyCommitLogStorePaths: Java default null.
	ReadOnlyCommitLogStorePaths string `prop:"readOnlyCommitLogStorePaths"`
	// MappedFileSizeCommitLog: Java default 1024 * 1024 * 1024.
	MappedFileSizeCommitLog int `prop:"mappedFileSizeCommitLog"`
	// MappedFileSizeConsumeQueue: Java default 300000 * ConsumeQueue.CQ_STORE_UNIT_SIZE.
	MappedFileSizeConsumeQueue int `prop:"mappedFileSizeConsumeQueue"`
	// EnableConsumeQueueExt: Java default false.
	EnableConsumeQueueExt bool `prop:"enableConsumeQueueExt"`
	// MappedFileSizeConsumeQueueExt: Java default 48 * 1024 * 1024.
	MappedFileSizeConsumeQueueExt int `prop:"mappedFileSizeConsumeQueueExt"`
	// BitMapLengthConsumeQueueExt: Java default 64.
	BitMapLengthConsumeQueueExt int `prop:"bitMapLengthConsumeQueueExt"`
	// FlushIntervalCommitLog: Java default 500.
	FlushIntervalCommitLog int `prop:"flushIntervalCommitLog,important"`
	// CommitIntervalCommitLog: Java default 200.
	CommitIntervalCommitLog int `prop:"commitIntervalCommitLog,important"`
	// UseReentrantLockWhenPutMessage: Java default true.
	UseReentrantLockWhenPutMessage bool `prop:"useReentrantLockWhenPutMessage"`
	// FlushCommitLogTimed: Java default true.
	FlushCommitLogTimed bool `prop:"flushCommitLogTimed,important"`
	// FlushIntervalConsumeQueue: Java default 1000.
	FlushIntervalConsumeQueue int `prop:"flushIntervalConsumeQueue"`
	// CleanResourceInterval: Java default 10000.
	CleanResourceInterval int `prop:"cleanResourceInterval"`
	// DeleteCommitLogFilesInterval: Java default 100.
	DeleteCommitLogFilesInterval int `prop:"deleteCommitLogFilesInterval"`
	// DeleteConsumeQueueFilesInterval: Java default 100.
	DeleteConsumeQueueFilesInterval int `prop:"deleteConsumeQueueFilesInterval"`
	// DestroyMapedFileIntervalForcibly: Java default 1000 * 120.
	DestroyMapedFileIntervalForcibly int `prop:"destroyMapedFileIntervalForcibly"`
	// RedeleteHangedFileInterval: Java default 1000 * 120.
	RedeleteHangedFileInterval int `prop:"redeleteHangedFileInterval"`
	// DeleteWhen: Java default "04".
	DeleteWhen string `prop:"deleteWhen,important"`
	// DiskMaxUsedSpaceRatio: Java default 75.
	DiskMaxUsedSpaceRatio int `prop:"diskMaxUsedSpaceRatio"`
	// FileReservedTime: Java default 72.
	FileReservedTime int `prop:"fileReservedTime,important"`
	// PutMsgIndexHightWater: Java default 600000.
	PutMsgIndexHightWater int `prop:"putMsgIndexHightWater"`
	// MaxMessageSize: Java default 1024 * 1024 * 4.
	MaxMessageSize int `prop:"maxMessageSize"`
	// CheckCRCOnRecover: Java default true.
	CheckCRCOnRecover bool `prop:"checkCRCOnRecover"`
	// FlushCommitLogLeastPages: Java default 4.
	FlushCommitLogLeastPages int `prop:"flushCommitLogLeastPages"`
	// CommitCommitLogLeastPages: Java default 4.
	CommitCommitLogLeastPages int `prop:"commitCommitLogLeastPages"`
	// FlushLeastPagesWhenWarmMapedFile: Java default 1024 / 4 * 16.
	FlushLeastPagesWhenWarmMapedFile int `prop:"flushLeastPagesWhenWarmMapedFile"`
	// FlushConsumeQueueLeastPages: Java default 2.
	FlushConsumeQueueLeastPages int `prop:"flushConsumeQueueLeastPages"`
	// FlushCommitLogThoroughInterval: Java default 1000 * 10.
	FlushCommitLogThoroughInterval int `prop:"flushCommitLogThoroughInterval"`
	// CommitCommitLogThoroughInterval: Java default 200.
	CommitCommitLogThoroughInterval int `prop:"commitCommitLogThoroughInterval"`
	// FlushConsumeQueueThoroughInterval: Java default 1000 * 60.
	FlushConsumeQueueThoroughInterval int `prop:"flushConsumeQueueThoroughInterval"`
	// MaxTransferBytesOnMessageInMemory: Java default 1024 * 256.
	MaxTransferBytesOnMessageInMemory int `prop:"maxTransferBytesOnMessageInMemory,important"`
	// MaxTransferCountOnMessageInMemory: Java default 32.
	MaxTransferCountOnMessageInMemory int `prop:"maxTransferCountOnMessageInMemory,important"`
	// MaxTransferBytesOnMessageInDisk: Java default 1024 * 64.
	MaxTransferBytesOnMessageInDisk int `prop:"maxTransferBytesOnMessageInDisk,important"`
	// MaxTransferCountOnMessageInDisk: Java default 8.
	MaxTransferCountOnMessageInDisk int `prop:"maxTransferCountOnMessageInDisk,important"`
	// AccessMessageInMemoryMaxRatio: Java default 40.
	AccessMessageInMemoryMaxRatio int `prop:"accessMessageInMemoryMaxRatio,important"`
	// MessageIndexEnable: Java default true.
	MessageIndexEnable bool `prop:"messageIndexEnable,important"`
	// MaxHashSlotNum: Java default 5000000.
	MaxHashSlotNum int `prop:"maxHashSlotNum"`
	// MaxIndexNum: Java default 5000000 * 4.
	MaxIndexNum int `prop:"maxIndexNum"`
	// MaxMsgsNumBatch: Java default 64.
	MaxMsgsNumBatch int `prop:"maxMsgsNumBatch"`
	// MessageIndexSafe: Java default false.
	MessageIndexSafe bool `prop:"messageIndexSafe,important"`
	// HAListenPort: Java default 10912.
	HAListenPort int `prop:"haListenPort"`
	// HASendHeartbeatInterval: Java default 1000 * 5.
	HASendHeartbeatInterval int `prop:"haSendHeartbeatInterval"`
	// HAHousekeepingInterval: Java default 1000 * 20.
	HAHousekeepingInterval int `prop:"haHousekeepingInterval"`
	// HATransferBatchSize: Java default 1024 * 32.
	HATransferBatchSize int `prop:"haTransferBatchSize"`
	// HAMasterAddress: Java default null.
	HAMasterAddress string `prop:"haMasterAddress,important"`
	// HASlaveFallbehindMax: Java default 1024 * 1024 * 256.
	HASlaveFallbehindMax int `prop:"haSlaveFallbehindMax"`
	// BrokerRole: Java default BrokerRole.ASYNC_MASTER.
	BrokerRole BrokerRole `prop:"brokerRole,important"`
	// FlushDiskType: Java default FlushDiskType.ASYNC_FLUSH.
	FlushDiskType FlushDiskType `prop:"flushDiskType,important"`
	// SyncFlushTimeout: Java default 1000 * 5.
	SyncFlushTimeout int `prop:"syncFlushTimeout"`
	// SlaveTimeout: Java default 3000.
	SlaveTimeout int `prop:"slaveTimeout"`
	// MessageDelayLevel: Java default "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h".
	MessageDelayLevel string `prop:"messageDelayLevel"`
	// FlushDelayOffsetInterval: Java default 1000 * 10.
	FlushDelayOffsetInterval int64 `prop:"flushDelayOffsetInterval"`
	// CleanFileForciblyEnable: Java default true.
	CleanFileForciblyEnable bool `prop:"cleanFileForciblyEnable,important"`
	// WarmMapedFileEnable: Java default false.
	WarmMapedFileEnable bool `prop:"warmMapedFileEnable"`
	// OffsetCheckInSlave: Java default false.
	OffsetCheckInSlave bool `prop:"offsetCheckInSlave"`
	// DebugLockEnable: Java default false.
	DebugLockEnable bool `prop:"debugLockEnable"`
	// DuplicationEnable: Java default false.
	DuplicationEnable bool `prop:"duplicationEnable"`
	// DiskFallRecorded: Java default true.
	DiskFallRecorded bool `prop:"diskFallRecorded"`
	// OSPageCacheBusyTimeOutMills: Java default 1000.
	OSPageCacheBusyTimeOutMills int64 `prop:"osPageCacheBusyTimeOutMills"`
	// DefaultQueryMaxNum: Java default 32.
	DefaultQueryMaxNum int `prop:"defaultQueryMaxNum"`
	// TransientStorePoolEnable: Java default false.
	TransientStorePoolEnable bool `prop:"transientStorePoolEnable,important"`
	// TransientStorePoolSize: Java default 5.
	TransientStorePoolSize int `prop:"transientStorePoolSize"`
	// FastFailIfNoBufferInStorePool: Java default false.
	FastFailIfNoBufferInStorePool bool `prop:"fastFailIfNoBufferInStorePool"`
	// EnableDLegerCommitLog: Java default false.
	EnableDLegerCommitLog bool `prop:"enableDLegerCommitLog"`
	// DLegerGroup: Java default unset.
	DLegerGroup string `prop:"dLegerGroup"`
	// DLegerPeers: Java default unset.
	DLegerPeers string `prop:"dLegerPeers"`
	// DLegerSelfID: Java default unset.
	DLegerSelfID string `prop:"dLegerSelfId"`
	// PreferredLeaderID: Java default unset.
	PreferredLeaderID string `prop:"preferredLeaderId"`
	// EnableBatchPush: Java default false.
	EnableBatchPush bool `prop:"enableBatchPush"`
	// EnableScheduleMessageStats: Java default true.
	EnableScheduleMessageStats bool `prop:"enableScheduleMessageStats"`
	// EnableLMQ: Java default false.
	EnableLMQ bool `prop:"enableLmq"`
	// EnableMultiDispatch: Java default false.
	EnableMultiDispatch bool `prop:"enableMultiDispatch"`
	// MaxLMQConsumeQueueNum: Java default 20000.
	MaxLMQConsumeQueueNum int `prop:"maxLmqConsumeQueueNum"`
	// EnableScheduleAsyncDeliver: Java default false.
	EnableScheduleAsyncDeliver bool `prop:"enableScheduleAsyncDeliver"`
	// ScheduleAsyncDeliverMaxPendingLimit: Java default 2000.
	ScheduleAsyncDeliverMaxPendingLimit int `prop:"scheduleAsyncDeliverMaxPendingLimit"`
	// ScheduleAsyncDeliverMaxResendNum2Blocked: Java default 3.
	ScheduleAsyncDeliverMaxResendNum2Blocked int `prop:"scheduleAsyncDeliverMaxResendNum2Blocked"`

	// 5.x controller mode (store/ha/autoswitch), not in 4.9.8; defaults
	// from 5.3.3's MessageStoreConfig.

	// StorePathEpochFile: Java default null (<storePathRootDir>/epochFileCheckpoint).
	StorePathEpochFile string `prop:"storePathEpochFile"`
	// AllAckInSyncStateSet: Java default false. A waiting put on a
	// controller-mode master is acknowledged only when every SyncStateSet
	// member holds it.
	AllAckInSyncStateSet bool `prop:"allAckInSyncStateSet,important"`
	// MinInSyncReplicas: Java default 1 (the master counts).
	MinInSyncReplicas int `prop:"minInSyncReplicas,important"`
	// InSyncReplicas: Java default 1; accepted, not used (warned above 2,
	// see Unimplemented; 5.x ignores it
	// when allAckInSyncStateSet is set).
	InSyncReplicas int `prop:"inSyncReplicas,important"`
	// TotalReplicas: Java default 1; accepted, not used (warned when not
	// 1, see Unimplemented).
	TotalReplicas int `prop:"totalReplicas,important"`
	// HAMaxTimeSlaveNotCatchup: Java default 1000 * 15. A SyncStateSet
	// member that has not caught up with the master for this long is
	// shrunk out of the set.
	HAMaxTimeSlaveNotCatchup int64 `prop:"haMaxTimeSlaveNotCatchup"`
	// SyncFromLastFile: Java default false. An empty replica starts from
	// the master's last CommitLog file instead of its first.
	SyncFromLastFile bool `prop:"syncFromLastFile"`
	// AsyncLearner: Java default false. The replica never joins the
	// SyncStateSet.
	AsyncLearner bool `prop:"asyncLearner"`

	// Timer messages (5.x MessageStoreConfig keys; 4.9.8 has none: see
	// docs/timer.md).
	// TimerWheelEnable: 5.x default true.
	TimerWheelEnable bool `prop:"timerWheelEnable"`
	// TimerMaxDelaySec: 5.x default 3600 * 24 * 3.
	TimerMaxDelaySec int64 `prop:"timerMaxDelaySec"`
	// TimerPrecisionMs: 5.x default 1000.
	TimerPrecisionMs int `prop:"timerPrecisionMs"`
	// TimerFlushIntervalMs: 5.x default 1000 (timercheck persist interval).
	TimerFlushIntervalMs int `prop:"timerFlushIntervalMs"`
}

// NewMessageStoreConfig returns the 4.9.8 defaults.
func NewMessageStoreConfig() *MessageStoreConfig {
	return &MessageStoreConfig{
		StorePathRootDir:                         filepath.Join(userHome(), "store"),
		MappedFileSizeCommitLog:                  1024 * 1024 * 1024,
		MappedFileSizeConsumeQueue:               300000 * CQStoreUnitSize,
		MappedFileSizeConsumeQueueExt:            48 * 1024 * 1024,
		BitMapLengthConsumeQueueExt:              64,
		FlushIntervalCommitLog:                   500,
		CommitIntervalCommitLog:                  200,
		UseReentrantLockWhenPutMessage:           true,
		FlushCommitLogTimed:                      true,
		FlushIntervalConsumeQueue:                1000,
		CleanResourceInterval:                    10000,
		DeleteCommitLogFilesInterval:             100,
		DeleteConsumeQueueFilesInterval:          100,
		DestroyMapedFileIntervalForcibly:         1000 * 120,
		RedeleteHangedFileInterval:               1000 * 120,
		DeleteWhen:                               "04",
		DiskMaxUsedSpaceRatio:                    75,
		FileReservedTime:                         72,
		PutMsgIndexHightWater:                    600000,
		MaxMessageSize:                           1024 * 1024 * 4,
		CheckCRCOnRecover:                        true,
		FlushCommitLogLeastPages:                 4,
		CommitCommitLogLeastPages:                4,
		FlushLeastPagesWhenWarmMapedFile:         1024 / 4 * 16,
		FlushConsumeQueueLeastPages:              2,
		FlushCommitLogThoroughInterval:           1000 * 10,
		CommitCommitLogThoroughInterval:          200,
		FlushConsumeQueueThoroughInterval:        1000 * 60,
		MaxTransferBytesOnMessageInMemory:        1024 * 256,
		MaxTransferCountOnMessageInMemory:        32,
		MaxTransferBytesOnMessageInDisk:          1024 * 64,
		MaxTransferCountOnMessageInDisk:          8,
		AccessMessageInMemoryMaxRatio:            40,
		MessageIndexEnable:                       true,
		MaxHashSlotNum:                           5000000,
		MaxIndexNum:                              5000000 * 4,
		MaxMsgsNumBatch:                          64,
		HAListenPort:                             10912,
		HASendHeartbeatInterval:                  1000 * 5,
		HAHousekeepingInterval:                   1000 * 20,
		HATransferBatchSize:                      1024 * 32,
		HASlaveFallbehindMax:                     1024 * 1024 * 256,
		BrokerRole:                               AsyncMaster,
		FlushDiskType:                            AsyncFlush,
		SyncFlushTimeout:                         1000 * 5,
		SlaveTimeout:                             3000,
		MessageDelayLevel:                        "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h",
		FlushDelayOffsetInterval:                 1000 * 10,
		TimerWheelEnable:                         true,
		TimerMaxDelaySec:                         3600 * 24 * 3,
		TimerPrecisionMs:                         1000,
		TimerFlushIntervalMs:                     1000,
		CleanFileForciblyEnable:                  true,
		DiskFallRecorded:                         true,
		OSPageCacheBusyTimeOutMills:              1000,
		DefaultQueryMaxNum:                       32,
		TransientStorePoolSize:                   5,
		EnableScheduleMessageStats:               true,
		MaxLMQConsumeQueueNum:                    20000,
		ScheduleAsyncDeliverMaxPendingLimit:      2000,
		ScheduleAsyncDeliverMaxResendNum2Blocked: 3,
		MinInSyncReplicas:                        1,
		InSyncReplicas:                           1,
		TotalReplicas:                            1,
		HAMaxTimeSlaveNotCatchup:                 1000 * 15,
	}
}

// userHome is Java's System.getProperty("user.home").
func userHome() string {
	if h, err := os.UserHomeDir(); err == nil {
		return h
	}
	return "."
}

// CommitLogDir is storePathCommitLog, or <root>/commitlog when unset
// (MessageStoreConfig.getStorePathCommitLog).
func (c *MessageStoreConfig) CommitLogDir() string {
	if c.StorePathCommitLog != "" {
		return c.StorePathCommitLog
	}
	return filepath.Join(c.StorePathRootDir, "commitlog")
}

// ConsumeQueueDir is <root>/consumequeue (StorePathConfigHelper).
func (c *MessageStoreConfig) ConsumeQueueDir() string {
	return filepath.Join(c.StorePathRootDir, "consumequeue")
}

// ConsumeQueueExtDir is <root>/consumequeue_ext.
func (c *MessageStoreConfig) ConsumeQueueExtDir() string {
	return filepath.Join(c.StorePathRootDir, "consumequeue_ext")
}

// IndexDir is <root>/index.
func (c *MessageStoreConfig) IndexDir() string { return filepath.Join(c.StorePathRootDir, "index") }

// CheckpointPath is <root>/checkpoint.
func (c *MessageStoreConfig) CheckpointPath() string {
	return filepath.Join(c.StorePathRootDir, "checkpoint")
}

// AbortPath is <root>/abort.
func (c *MessageStoreConfig) AbortPath() string { return filepath.Join(c.StorePathRootDir, "abort") }

// EpochFilePath is storePathEpochFile, or <root>/epochFileCheckpoint when
// unset (5.x getStorePathEpochFile).
func (c *MessageStoreConfig) EpochFilePath() string {
	if c.StorePathEpochFile != "" {
		return c.StorePathEpochFile
	}
	return filepath.Join(c.StorePathRootDir, "epochFileCheckpoint")
}

// Unimplemented lists the settings that are accepted (4.9.8 and 5.x files
// load) but have no effect here; Open logs each as a warning. A SYNC_MASTER waits
// for one slave as 4.9.8 does, which is 5.x's inSyncReplicas=2; a larger
// value would silently wait for fewer replicas than configured.
func (c *MessageStoreConfig) Unimplemented() []string {
	var out []string
	if c.InSyncReplicas > 2 {
		out = append(out, fmt.Sprintf("inSyncReplicas=%d is not implemented: a SYNC_MASTER waits for one slave", c.InSyncReplicas))
	}
	if c.TotalReplicas != 1 {
		// 5.x's standalone start-up does not check it either; only the
		// broker container rejects totalReplicas below (min)inSyncReplicas.
		out = append(out, fmt.Sprintf("totalReplicas=%d is not implemented: 5.x reads it only for "+
			"enableSlaveActingMaster and lockInStrictMode, which are not implemented either", c.TotalReplicas))
	}
	if c.IsTransientStorePoolEnable() {
		// Measured not worth it here (docs/benchmarks.md, session 3).
		out = append(out, "transientStorePoolEnable is not implemented: messages are stored through the mapped CommitLog file")
	}
	return out
}

// LockPath is <root>/lock.
func (c *MessageStoreConfig) LockPath() string { return filepath.Join(c.StorePathRootDir, "lock") }

// ConfigDir is <root>/config (topics.json, consumerOffset.json, ...).
func (c *MessageStoreConfig) ConfigDir() string { return filepath.Join(c.StorePathRootDir, "config") }

// DelayOffsetPath is <root>/config/delayOffset.json.
func (c *MessageStoreConfig) DelayOffsetPath() string {
	return filepath.Join(c.ConfigDir(), "delayOffset.json")
}

// IsTransientStorePoolEnable is Java's derived getter: the pool is used only
// for ASYNC_FLUSH on a non-slave.
func (c *MessageStoreConfig) IsTransientStorePoolEnable() bool {
	return c.TransientStorePoolEnable && c.FlushDiskType == AsyncFlush && c.BrokerRole != Slave
}
