package ha

import (
	"net"
	"strconv"
	"time"

	"github.com/rocketmq-go/rmq/broker/store"
)

// Config is the HA part of MessageStoreConfig, in Go units.
type Config struct {
	// ListenAddr is the HA listen address; "" means ":"+haListenPort.
	ListenAddr string
	// SyncMaster enables the GroupTransferService hook (brokerRole
	// SYNC_MASTER).
	SyncMaster bool
	// HeartbeatInterval is haSendHeartbeatInterval (5 s).
	HeartbeatInterval time.Duration
	// HousekeepingInterval is haHousekeepingInterval (20 s): a connection
	// that read nothing for this long is closed.
	HousekeepingInterval time.Duration
	// TransferBatchSize is haTransferBatchSize (32 KiB).
	TransferBatchSize int
	// SlaveFallbehindMax is haSlaveFallbehindMax (256 MiB).
	SlaveFallbehindMax int64
	// CommitLogFileSize is mappedFileSizeCommitLog: a slave reporting 0
	// is served from the start of the master's last file.
	CommitLogFileSize int64
	// ReconnectInterval is how long an HA client waits between connection
	// attempts (Java: 5 s).
	ReconnectInterval time.Duration

	// Controller mode (5.x MessageStoreConfig).

	// AllAckInSyncStateSet: a waiting put is acknowledged only when every
	// SyncStateSet member acknowledged it.
	AllAckInSyncStateSet bool
	// MinInSyncReplicas: below this SyncStateSet size (master included) a
	// waiting put is refused with IN_SYNC_REPLICAS_NOT_ENOUGH.
	MinInSyncReplicas int
	// MaxTimeSlaveNotCatchup is haMaxTimeSlaveNotCatchup (15 s).
	MaxTimeSlaveNotCatchup time.Duration
	// SlaveTimeout bounds an allAckInSyncStateSet wait (slaveTimeout, 3 s,
	// as 5.x's handleHA uses).
	SlaveTimeout time.Duration
	// SyncFromLastFile: an empty replica asks to start at the master's
	// last CommitLog file (handshake flag).
	SyncFromLastFile bool
	// AsyncLearner: the replica never joins the SyncStateSet (handshake
	// flag).
	AsyncLearner bool
}

// ConfigFromStore takes the HA settings of a MessageStoreConfig; listenHost
// ("" = all interfaces) is combined with haListenPort.
func ConfigFromStore(c *store.MessageStoreConfig, listenHost string) Config {
	return Config{
		ListenAddr:           net.JoinHostPort(listenHost, strconv.Itoa(c.HAListenPort)),
		SyncMaster:           c.BrokerRole == store.SyncMaster,
		HeartbeatInterval:    time.Duration(c.HASendHeartbeatInterval) * time.Millisecond,
		HousekeepingInterval: time.Duration(c.HAHousekeepingInterval) * time.Millisecond,
		TransferBatchSize:    c.HATransferBatchSize,
		SlaveFallbehindMax:   int64(c.HASlaveFallbehindMax),
		CommitLogFileSize:    int64(c.MappedFileSizeCommitLog),
		ReconnectInterval:    5 * time.Second,

		AllAckInSyncStateSet:   c.AllAckInSyncStateSet,
		MinInSyncReplicas:      c.MinInSyncReplicas,
		MaxTimeSlaveNotCatchup: time.Duration(c.HAMaxTimeSlaveNotCatchup) * time.Millisecond,
		SlaveTimeout:           time.Duration(c.SlaveTimeout) * time.Millisecond,
		SyncFromLastFile:       c.SyncFromLastFile,
		AsyncLearner:           c.AsyncLearner,
	}
}

func (c *Config) setDefaults() {
	if c.HeartbeatInterval <= 0 {
		c.HeartbeatInterval = 5 * time.Second
	}
	if c.HousekeepingInterval <= 0 {
		c.HousekeepingInterval = 20 * time.Second
	}
	if c.TransferBatchSize <= 0 {
		c.TransferBatchSize = 32 << 10
	}
	if c.TransferBatchSize > DefaultMaxBodySize {
		c.TransferBatchSize = DefaultMaxBodySize
	}
	if c.SlaveFallbehindMax <= 0 {
		c.SlaveFallbehindMax = 256 << 20
	}
	if c.CommitLogFileSize <= 0 {
		c.CommitLogFileSize = 1 << 30
	}
	if c.ReconnectInterval <= 0 {
		c.ReconnectInterval = 5 * time.Second
	}
	if c.MinInSyncReplicas <= 0 {
		c.MinInSyncReplicas = 1
	}
	if c.MaxTimeSlaveNotCatchup <= 0 {
		c.MaxTimeSlaveNotCatchup = 15 * time.Second
	}
	if c.SlaveTimeout <= 0 {
		c.SlaveTimeout = 3 * time.Second
	}
	if c.ListenAddr == "" {
		c.ListenAddr = ":10912"
	}
}
