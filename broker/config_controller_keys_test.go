package broker_test

// 5.x controller-mode BrokerConfig keys (config.go): a 4.9.8 broker does
// not print them, so the golden comparison of getBrokerConfig's keys skips
// them.
func init() {
	for _, k := range []string{"enableControllerMode", "controllerAddr", "fetchControllerAddrByDnsLookup",
		"syncBrokerMetadataPeriod", "checkSyncStateSetPeriod", "syncControllerMetadataPeriod",
		"controllerHeartBeatTimeoutMills", "brokerElectionPriority", "brokerHeartbeatInterval",
		"sendHeartbeatTimeoutMillis", "enableSlaveActingMaster"} {
		knownConfigKeyDiffs[k] = true
	}
}
