// Package controller is the broker's side of Apache RocketMQ 5.x controller
// mode: the ReplicasManager. It obtains the broker's id from the controller
// and keeps it in the store's identity files, heartbeats, follows the
// group's master and SyncStateSet, reports SyncStateSet changes as master,
// and fences a master that lost its lease.
//
// Identity files (same names and text as 5.x, under storePathRootDir):
//
//	brokerIdentity        cluster#brokerName#brokerId
//	brokerIdentity-temp   cluster#brokerName#brokerId#registerCheckCode
//
// Registration (5.3 register()):
//
//	brokerIdentity exists ─────────────────────────────┐
//	else GET_NEXT_BROKER_ID → write -temp →             │
//	     APPLY_BROKER_ID → write brokerIdentity, drop -temp
//	                                                    ▼
//	REGISTER_BROKER_TO_CONTROLLER → master known? else ELECT_MASTER
//	                                                    ▼
//	ChangeToMaster(epoch) / ChangeToSlave(master, epoch, id)
//
// Then, on the run goroutine: GET_REPLICA_INFO every
// syncBrokerMetadataPeriod (a newer epoch changes the role; no master →
// ELECT_MASTER), NOTIFY_BROKER_ROLE_CHANGED at once, leader lookup every
// syncControllerMetadataPeriod, and as master ALTER_SYNC_STATE_SET when the
// HA layer proposes a change (Propose) or finds members behind every
// checkSyncStateSetPeriod. The heartbeat goroutine sends BROKER_HEARTBEAT
// every brokerHeartbeatInterval: synchronously to the leader, oneway to the
// other controllers.
//
// Invariants: only the run goroutine changes the role (Host.ChangeToMaster
// / ChangeToSlave are never concurrent); an epoch is applied once and only
// if newer than the last applied; with FenceOnLeaseLoss (the broker sets it
// unless allAckInSyncStateSet is on) a master whose leader has answered no
// heartbeat sent within 90 % of controllerHeartBeatTimeoutMills is fenced
// (writes refused) before the controller, which counts the whole timeout
// from the last heartbeat it received, can elect another master; the fence
// lifts only when the leader confirms this broker is still the master of
// its epoch.
//
// Usage (the broker does this in controller mode):
//
//	m := controller.New(cfg, remotingClient, ctlclient.New(remotingClient, addrs, lg), host, lg)
//	m.Start()
//	defer m.Shutdown(ctx)
package controller
