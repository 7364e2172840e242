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
// Rotation follows logback's FixedWindowRollingPolicy as Apache configures
// it: when a line would take broker.log past its size (128 MiB for
// broker.log and store.log, 100 MiB for the others), the file moves to
// otherdays/broker.1.log.gz, older archives shift to .2… and the one past
// maxIndex (20 for broker.log, 5 for stats.log, lock.log and namesrv.log,
// 10 for the others) is dropped:
//
//	<dir>/broker.log  store.log  remoting.log …
//	<dir>/otherdays/broker.1.log.gz … broker.20.log.gz
//
// Gzip runs on one goroutine per rotated file, started with its first
// rotation and waited for by Close; a writer only pays for two renames.
//
// Invariants: the returned Close closes every file, waits for pending
// archives and is safe to call more than once; lines logged after it are
// dropped; no goroutine of this package logs.
//
// Usage:
//
//	lg, closeLogs, err := logging.New(logging.Options{Format: "json", Level: "info", Dir: dir})
//	if err != nil { … }
//	defer closeLogs()
package logging
