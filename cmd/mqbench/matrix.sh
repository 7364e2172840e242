#!/usr/bin/env bash
# Runs the figures of docs/benchmarks.md: mqnamesrv and mqbroker as separate
# processes on loopback (ASYNC_FLUSH, store in a temporary directory), then
# mqbench producer runs (1 KiB, 1/16/64/256 threads, raw and Go client) and
# consumer runs on a backlog. Every mqbench run is bounded (≤ 60 s).
#
#   cmd/mqbench/matrix.sh [out-file]
#
# Environment: NS_PORT (39876), BROKER_PORT (40911), MEASURE (20s),
# WARMUP (5s), BACKLOG (1000000), THREADS ("1 16 64 256"), CLIENTS ("raw go").
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-/dev/stdout}
NS_PORT=${NS_PORT:-39876}
BROKER_PORT=${BROKER_PORT:-40911}
MEASURE=${MEASURE:-20s}
WARMUP=${WARMUP:-5s}
BACKLOG=${BACKLOG:-1000000}
THREADS=${THREADS:-"1 16 64 256"}
CLIENTS=${CLIENTS:-"raw go"}
W=$(mktemp -d /tmp/mqbench-matrix.XXXXXX)
NS=127.0.0.1:$NS_PORT

go build -o "$W/mqnamesrv" ./cmd/mqnamesrv
go build -o "$W/mqbroker" ./cmd/mqbroker
go build -o "$W/mqbench" ./cmd/mqbench

printf 'listenPort=%s\n' "$NS_PORT" > "$W/namesrv.properties"
cat > "$W/broker.properties" <<EOF
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
EOF

NS_PID= BROKER_PID=
cleanup() {
  [ -n "$BROKER_PID" ] && kill "$BROKER_PID" 2>/dev/null && wait "$BROKER_PID" 2>/dev/null || true
  [ -n "$NS_PID" ] && kill "$NS_PID" 2>/dev/null && wait "$NS_PID" 2>/dev/null || true
  rm -rf "$W"
}
trap cleanup EXIT

"$W/mqnamesrv" -c "$W/namesrv.properties" > "$W/namesrv.log" 2>&1 &
NS_PID=$!
"$W/mqbroker" -c "$W/broker.properties" > "$W/broker.log" 2>&1 &
BROKER_PID=$!
for _ in $(seq 1 100); do grep -q "boot success" "$W/broker.log" && break; sleep 0.2; done
sleep 1 # first registration with the name server

bench() { timeout 90 "$W/mqbench" -n "$NS" -pid "$BROKER_PID" -i 5s "$@" 2>&1 | grep -v 'level=' >> "$OUT"; }

{
  echo "# $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD) $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# broker RSS at start: $(grep VmRSS /proc/$BROKER_PID/status)"
} >> "$OUT"
for c in $CLIENTS; do
  for w in $THREADS; do
    echo "## producer client=$c threads=$w size=1024 sync" >> "$OUT"
    bench -t "BenchSend_${c}_$w" -client "$c" -w "$w" -s 1024 -warmup "$WARMUP" -duration "$MEASURE"
  done
done
echo "## producer client=raw threads=64 size=1024 async inflight=32" >> "$OUT"
bench -t BenchSendAsync -client raw -w 64 -y -inflight 32 -s 1024 -warmup "$WARMUP" -duration "$MEASURE"

echo "## backlog: prefill $BACKLOG x 1 KiB (raw async, 64 threads), 16 queues" >> "$OUT"
left=$BACKLOG
while [ "$left" -gt 0 ]; do # ≤ 60 s per run
  bench -t BenchBacklog -queues 16 -client raw -w 64 -y -inflight 32 -s 1024 -q "$left" -duration 55s
  sent=$(grep -o 'Send Total: [0-9]*' "$OUT" | tail -1 | awk '{print $3}')
  [ "${sent:-0}" -gt 0 ] || break
  left=$((left - sent))
done
for c in raw go; do
  echo "## consumer client=$c backlog drain (group bench_drain_$c)" >> "$OUT"
  bench -t BenchBacklog -mode consumer -client "$c" -w 20 -g "bench_drain_$c" -duration 60s
done
echo "## end-to-end: producer and consumer together, raw client, 16 threads" >> "$OUT"
bench -t BenchE2E -mode both -client raw -from last -w 16 -s 1024 -g bench_e2e -duration "$MEASURE"
echo "# broker RSS at end: $(grep -E 'VmRSS|RssAnon|RssFile|VmHWM' /proc/$BROKER_PID/status | tr -s ' \n' ' ')" >> "$OUT"
