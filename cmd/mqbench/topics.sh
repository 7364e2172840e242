#!/usr/bin/env bash
# Many-topics figures: for each topic count, a fresh mqnamesrv and mqbroker
# (separate processes on loopback, ASYNC_FLUSH, store in a temporary
# directory), then `mqbench -topics N -queues 8 -conns 16 -inflight 16
# -s 1024` against them with -pid set to the broker, so CPU per message,
# descriptors and RSS are the broker's alone. Every step is bounded.
#
#   cmd/mqbench/topics.sh [out-file]
#
# Environment: TOPICS ("1 100 1000 5000"), MEASURE (20s), WARMUP (5s), NS_PORT (39876),
# BROKER_PORT (40911), EXTRA (more mqbench flags).
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-/dev/stdout}
TOPICS=${TOPICS:-"1 100 1000 5000"}
MEASURE=${MEASURE:-20s}
WARMUP=${WARMUP:-5s}
NS_PORT=${NS_PORT:-39876}
BROKER_PORT=${BROKER_PORT:-40911}
W=$(mktemp -d /tmp/mqbench-topics.XXXXXX)
NS=127.0.0.1:$NS_PORT

go build -o "$W/mqnamesrv" ./cmd/mqnamesrv
go build -o "$W/mqbroker" ./cmd/mqbroker
go build -o "$W/mqbench" ./cmd/mqbench

NS_PID= BROKER_PID=
stop() {
  [ -n "$BROKER_PID" ] && kill "$BROKER_PID" 2>/dev/null && wait "$BROKER_PID" 2>/dev/null || true
  [ -n "$NS_PID" ] && kill "$NS_PID" 2>/dev/null && wait "$NS_PID" 2>/dev/null || true
  BROKER_PID= NS_PID=
}
trap 'stop; rm -rf "$W"' EXIT

echo "# $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD) $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg), ulimit -n $(ulimit -n)" >> "$OUT"
for n in $TOPICS; do
  rm -rf "$W/store" && mkdir -p "$W/store"
  printf 'listenPort=%s\n' "$NS_PORT" > "$W/namesrv.properties"
  cat > "$W/broker.properties" <<CONF
brokerClusterName=DefaultCluster
brokerName=bench-broker
brokerId=0
brokerIP1=127.0.0.1
brokerIP2=127.0.0.1
listenPort=$BROKER_PORT
namesrvAddr=$NS
storePathRootDir=$W/store
flushDiskType=ASYNC_FLUSH
brokerRole=ASYNC_MASTER
CONF
  "$W/mqnamesrv" -c "$W/namesrv.properties" > "$W/namesrv.log" 2>&1 &
  NS_PID=$!
  "$W/mqbroker" -c "$W/broker.properties" > "$W/broker.log" 2>&1 &
  BROKER_PID=$!
  for _ in $(seq 1 100); do grep -q "boot success" "$W/broker.log" && break; sleep 0.2; done
  sleep 1 # first registration with the name server
  echo "## topics=$n queues=8 conns=16 inflight=16 size=1024 warmup=$WARMUP duration=$MEASURE" >> "$OUT"
  timeout 900 "$W/mqbench" -n "$NS" -pid "$BROKER_PID" -i 5s -topics "$n" -queues 8 -conns 16 -inflight 16 \
    -s 1024 -warmup "$WARMUP" -duration "$MEASURE" ${EXTRA:-} 2>&1 | grep -v 'level=' >> "$OUT" || echo "mqbench failed: $?" >> "$OUT"
  grep -ci 'too many open files' "$W/broker.log" | sed 's/^/# broker log lines with "too many open files": /' >> "$OUT" || true
  stop
done
