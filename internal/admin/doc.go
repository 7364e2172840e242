// Package admin is a read-only admin client over remoting.Client, the Go
// counterpart of the look-ups Java's DefaultMQAdminExt (tools) makes for
// mqadmin and rocketmq-dashboard: cluster info, topic list and routes from
// the name server; runtime info, topic stats, subscription groups, consume
// stats, consumer connections and messages from the brokers.
//
// Every call takes a ctx that bounds it; the caller owns the
// remoting.Client. Bodies are decoded with remoting/body's lenient decoders,
// so the brokers and name servers may be Apache ones.
//
// Fan-out follows Java: a topic's stats and a key query ask each broker
// group of the topic's route (its master, else its lowest-id slave:
// BrokerData.selectBrokerAddr); a group's consume stats and connections ask
// the broker groups of the route of its retry topic "%RETRY%<group>". When
// that route is missing (a group that never consumed) we ask every broker
// group of the cluster instead, where Java gives up.
//
// Usage:
//
//	a := admin.New(rc, []string{"127.0.0.1:9876"})
//	ci, err := a.ClusterInfo(ctx)
//	cs, err := a.ConsumeStats(ctx, "group", "")
//	lag := cs.ComputeTotalDiff()
package admin
