// Package logging builds the servers' *zap.Logger from a few operator
// options: the encoding (console or JSON), the level, and optional files
// with size-based rotation laid out as Apache RocketMQ 4.9.8's logback
// configuration lays them out, so that log tooling written for the Java
// servers finds the same files.
//
// Routing. Components name their loggers (lg.Named("store"), "remoting",
// "transaction", "stats"…). With file output on, each entry goes to one file
// chosen by the first dot-separated segment of its logger name that has a
// file of its own:
//
//	store, ha              → store.log        (Java's RocketmqStore)
//	remoting, gnet         → remoting.log     (RocketmqRemoting)
//	transaction            → transaction.log  (RocketmqTransaction)
//	stats                  → stats.log        (RocketmqStats)
//	rebalance              → lock.log         (RocketmqRebalanceLock)
//	filter                 → filter.log       (RocketmqFilter)
//	watermark, protection  → watermark.log, protection.log
//	anything else          → broker.log       (RocketmqBroker)
//
// A logger whose name starts with "namesrv" (mqstandalone's embedded name
// server) and every logger of the name server role write namesrv.log, as the
// Java name server's logback_namesrv.xml sends its remoting lines there too.
// Files are opened on their first line, so unused ones are never created.
//
// Invariants: the returned Close flushes and closes every file and is safe to
// call more than once; no goroutine of this package logs on its own.
//
// Usage:
//
//	lg, closeLogs, err := logging.New(logging.Options{Format: "json", Level: "info", Dir: dir})
//	if err != nil { … }
//	defer closeLogs()
package logging
