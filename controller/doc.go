// Package controller is the 5.x controller-mode controller: it keeps, per
// broker group, the replicas and their ids, the master and its epoch, and
// the SyncStateSet (replicas caught up with the master) and its epoch,
// replicated by Raft (github.com/hashicorp/raft, log and stable store in
// BoltDB via raft-boltdb/v2), and elects a new master from the SyncStateSet
// when a master stops heartbeating.
//
// Layers:
//
//	remoting request ─▶ processor.go ─▶ submit ─▶ scheduler goroutine (one request at a time)
//	                                               │ ReplicasInfoManager.<Request>(state) → Result{answer, events}
//	                                               │ raft.Apply(EncodeEvents(events)) and wait
//	                                               ▼
//	                                    FSM.Apply on every node ─▶ ReplicasInfoManager.Apply(event)
//
// ReplicasInfoManager (replicas.go, requests.go) is a plain deterministic
// struct: request methods only read it and return the events to replicate,
// with 5.x's response codes when they refuse; Apply is the only writer.
// Events (events.go) keep 5.x's EventType numbers; a log entry is one
// format byte (1) and a JSON array of events. Snapshots are JSON with
// sorted keys, so equal states give equal bytes.
//
// Liveness (heartbeat.go) is local to each node, never replicated, as in
// 5.x: brokers send BROKER_HEARTBEAT to every controller. Each node scans
// for expired heartbeats every scanNotActiveBrokerInterval; the leader also
// scans for groups whose master is inactive every scanInactiveMasterInterval,
// and a closed broker connection counts as an inactive broker at once. An
// inactive master triggers an election (election.go) through the same
// scheduler; with notifyBrokerRoleChanged the group's live brokers get
// NOTIFY_BROKER_ROLE_CHANGED.
//
// One port (mux.go): brokers reach the controller at a controllerDLegerPeers
// address (their controllerAddr), so the request API listens there, and so
// does Raft. The mux accepts on that address and peeks at each connection's
// first byte: our Raft stream layer starts every connection with the
// preface F7 'R' 'F' 'T'; a remoting frame starts with its big-endian
// length (first byte 0x00 for any frame under 16 MiB) and TLS with 0x16.
// Raft connections go to the Raft transport, the rest to a remoting.Server
// through Server.UseListener.
//
// Only the leader answers requests (after a Raft barrier, so its state has
// every committed entry); other nodes answer CONTROLLER_NOT_LEADER and
// CONTROLLER_GET_METADATA_INFO names the leader, which controller/client
// follows.
//
// Lock order: FSM.mu and HeartbeatManager.mu are leaves; no lock is held
// while waiting for Raft or the network.
//
// Usage:
//
//	cfg := controller.NewConfig()
//	cfg.ControllerDLegerGroup = "group1"
//	cfg.ControllerDLegerPeers = "n0-127.0.0.1:9878;n1-127.0.0.1:9868;n2-127.0.0.1:9858"
//	cfg.ControllerDLegerSelfId = "n0"
//	c, err := controller.New(cfg, lg)
//	err = c.Start()
//	defer c.Shutdown(ctx)
package controller
