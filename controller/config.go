package controller

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Controller types (5.x ControllerConfig.controllerType). Only the
// DLedger-configured controller exists here; its keys configure our Raft.
const (
	ControllerTypeDLedger = "DLedger"
	ControllerTypeJRaft   = "jRaft"
)

// Config mirrors 5.x's org.apache.rocketmq.common.ControllerConfig
// (rocketmq-all-5.3.3): the keys an operator's controller or name-server
// conf file carries. The controllerDLeger* keys configure our Raft
// (hashicorp/raft) exactly as they configure DLedger in Java: the group
// name, the peers "n0-host:port;n1-host:port" and this node's id. Keys of
// features we do not have (metrics exporters, jRaft) are not fields, so
// loading a file with them logs a warning and keeps going.
type Config struct {
	// RocketmqHome: system property rocketmq.home.dir, else env ROCKETMQ_HOME.
	RocketmqHome string `prop:"rocketmqHome"`
	// ConfigStorePath: ${user.home}/controller/controller.properties.
	ConfigStorePath string `prop:"configStorePath"`
	// ControllerType: "DLedger" (the only one we run; jRaft is refused).
	ControllerType string `prop:"controllerType"`
	// ScanNotActiveBrokerInterval (ms): 5000; how often expired broker
	// heartbeats are looked for.
	ScanNotActiveBrokerInterval int64 `prop:"scanNotActiveBrokerInterval"`
	// ControllerThreadPoolNums: 16 request workers.
	ControllerThreadPoolNums int `prop:"controllerThreadPoolNums"`
	// ControllerRequestThreadPoolQueueCapacity: 50000 queued requests.
	ControllerRequestThreadPoolQueueCapacity int `prop:"controllerRequestThreadPoolQueueCapacity"`
	// ControllerDLegerGroup: the Raft group name (reported by GET_METADATA_INFO).
	ControllerDLegerGroup string `prop:"controllerDLegerGroup"`
	// ControllerDLegerPeers: "n0-127.0.0.1:9878;n1-127.0.0.1:9868;...". Each
	// address carries both the controller API and Raft.
	ControllerDLegerPeers string `prop:"controllerDLegerPeers"`
	// ControllerDLegerSelfId: this node's id among the peers.
	ControllerDLegerSelfId string `prop:"controllerDLegerSelfId"`
	// MappedFileSize: 1 GiB, DLedger's entry file size; accepted, unused
	// (the Raft log is a BoltDB file); New warns about a non-default value.
	MappedFileSize int `prop:"mappedFileSize"`
	// ControllerStorePath: "" = ${user.home}/DLedgerController. Raft keeps
	// raft.db and snapshots/ under <path>/<selfId>.
	ControllerStorePath string `prop:"controllerStorePath"`
	// ElectMasterMaxRetryCount: 3 attempts of a controller-triggered election.
	ElectMasterMaxRetryCount int `prop:"electMasterMaxRetryCount"`
	// EnableElectUncleanMaster: false; true lets a replica outside the
	// SyncStateSet become master when no member is alive (may lose data).
	EnableElectUncleanMaster bool `prop:"enableElectUncleanMaster"`
	// IsProcessReadEvent: false; true also passes reads through the Raft
	// log (linearizable reads).
	IsProcessReadEvent bool `prop:"isProcessReadEvent"`
	// NotifyBrokerRoleChanged: true; send NOTIFY_BROKER_ROLE_CHANGED to the
	// group's live brokers after an election.
	NotifyBrokerRoleChanged bool `prop:"notifyBrokerRoleChanged"`
	// ScanInactiveMasterInterval (ms): 5000; how often the leader looks for
	// groups whose master is gone.
	ScanInactiveMasterInterval int64 `prop:"scanInactiveMasterInterval"`
	// ConfigBlackList: "configBlackList;configStorePath".
	ConfigBlackList string `prop:"configBlackList"`

	// Not Java keys.

	// Listener, when set, is served instead of binding this peer's address
	// (tests). The controller owns and closes it.
	Listener net.Listener
	// RaftHeartbeatTimeout, RaftElectionTimeout, RaftLeaderLeaseTimeout tune
	// hashicorp/raft; zero keeps its defaults (1 s, 1 s, 500 ms).
	RaftHeartbeatTimeout   time.Duration
	RaftElectionTimeout    time.Duration
	RaftLeaderLeaseTimeout time.Duration
	// RaftTrailingLogs, when positive, is how many entries a snapshot
	// leaves in the log (hashicorp/raft default 10240); tests use it to
	// force recovery from snapshots.
	RaftTrailingLogs uint64
}

// defaultMappedFileSize is ControllerConfig.mappedFileSize's default (1 GiB).
const defaultMappedFileSize = 1 << 30

// NewConfig returns 5.3.3's defaults.
func NewConfig() *Config {
	home, err := os.UserHomeDir()
	if err != nil {
		home = "."
	}
	return &Config{
		RocketmqHome:                             os.Getenv("ROCKETMQ_HOME"),
		ConfigStorePath:                          filepath.Join(home, "controller", "controller.properties"),
		ControllerType:                           ControllerTypeDLedger,
		ScanNotActiveBrokerInterval:              5000,
		ControllerThreadPoolNums:                 16,
		ControllerRequestThreadPoolQueueCapacity: 50000,
		MappedFileSize:                           defaultMappedFileSize,
		ElectMasterMaxRetryCount:                 3,
		NotifyBrokerRoleChanged:                  true,
		ScanInactiveMasterInterval:               5000,
		ConfigBlackList:                          "configBlackList;configStorePath",
	}
}

// Peer is one controllerDLegerPeers entry.
type Peer struct {
	ID   string
	Addr string
}

// ParsePeers reads "n0-host:port;n1-host:port". The id ends at the first '-'.
func ParsePeers(s string) ([]Peer, error) {
	var out []Peer
	seen := map[string]bool{}
	for _, e := range strings.Split(s, ";") {
		if e = strings.TrimSpace(e); e == "" {
			continue
		}
		id, addr, ok := strings.Cut(e, "-")
		if !ok || id == "" || addr == "" {
			return nil, fmt.Errorf("controller: bad peer %q in controllerDLegerPeers (want id-host:port)", e)
		}
		if _, _, err := net.SplitHostPort(addr); err != nil {
			return nil, fmt.Errorf("controller: bad peer address %q: %w", addr, err)
		}
		if seen[id] {
			return nil, fmt.Errorf("controller: peer id %q repeated in controllerDLegerPeers", id)
		}
		seen[id] = true
		out = append(out, Peer{ID: id, Addr: addr})
	}
	return out, nil
}

// StorePath resolves ControllerStorePath as Java's getter does.
func (c *Config) StorePath() string {
	if c.ControllerStorePath != "" {
		return c.ControllerStorePath
	}
	home, err := os.UserHomeDir()
	if err != nil {
		home = "."
	}
	return filepath.Join(home, c.ControllerType+"Controller")
}

// Validate collects every problem (ControllerManager.initialize's checks
// plus ours).
func (c *Config) Validate() error {
	var errs []error
	if c.ControllerType != ControllerTypeDLedger {
		errs = append(errs, fmt.Errorf("controller: controllerType %q not supported (only %s, on hashicorp/raft)", c.ControllerType, ControllerTypeDLedger))
	}
	if c.ControllerDLegerPeers == "" {
		errs = append(errs, errors.New("Attribute value controllerDLegerPeers of ControllerConfig is null or empty"))
	}
	if c.ControllerDLegerSelfId == "" {
		errs = append(errs, errors.New("Attribute value controllerDLegerSelfId of ControllerConfig is null or empty"))
	}
	if peers, err := ParsePeers(c.ControllerDLegerPeers); err != nil {
		errs = append(errs, err)
	} else if c.ControllerDLegerSelfId != "" && selfPeer(peers, c.ControllerDLegerSelfId) == nil {
		errs = append(errs, fmt.Errorf("controller: controllerDLegerSelfId %q is not among controllerDLegerPeers", c.ControllerDLegerSelfId))
	}
	if c.ScanNotActiveBrokerInterval <= 0 || c.ScanInactiveMasterInterval <= 0 {
		errs = append(errs, errors.New("controller: scanNotActiveBrokerInterval and scanInactiveMasterInterval must be positive"))
	}
	if c.ControllerThreadPoolNums <= 0 || c.ControllerRequestThreadPoolQueueCapacity <= 0 {
		errs = append(errs, errors.New("controller: controllerThreadPoolNums and controllerRequestThreadPoolQueueCapacity must be positive"))
	}
	return errors.Join(errs...)
}

func selfPeer(peers []Peer, id string) *Peer {
	for i := range peers {
		if peers[i].ID == id {
			return &peers[i]
		}
	}
	return nil
}
