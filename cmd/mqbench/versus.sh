#!/usr/bin/env bash
# Our broker against Apache RocketMQ 4.9.8 in one run, the table of issue
# #11 and docs/benchmarks.md ("Against Apache RocketMQ 4.9.8"). For every
# load point it starts fresh servers (name server + broker, store in a
# temporary directory, ASYNC_MASTER + ASYNC_FLUSH unless the row says
# otherwise), ours then Apache's, warms up, measures with mqbench's lean
# generator (-mode send: connections × requests in flight, 1 KiB
# SEND_MESSAGE_V2, exact p99, server CPU per message from /proc), and stops
# them. Then the backlog row (fill BACKLOG messages, drain with 4
# connections), a framed echo server at 16 × 16 (the machine's ceiling),
# and the table with every aim marked.
#
#   APACHE_HOME=/path/to/rocketmq-4.9.8 cmd/mqbench/versus.sh [out-file]
#
# Apache: APACHE_HOME is an existing installation (its lib/*.jar is the
# classpath and it is ROCKETMQ_HOME), or APACHE_CLASSPATH a classpath with
# ROCKETMQ_HOME set. It runs with the heap and GC settings of its
# bin/runserver.sh and bin/runbroker.sh, scaled to a 1 GiB heap, plus the
# --add-opens a 4.9.8 broker needs on JDK 17. Neither set: Apache's
# columns are skipped (with a message).
#
# Environment: POINTS ("1x1 16x1 4x16 16x16 64x16"), WARMUP (10s),
# MEASURE (15s), BACKLOG (500000), PULL_CONNS (4), WAKE_ROUNDS (1000:
# long-poll wake-ups timed on the drained servers), QUEUES (8),
# EXTRA ("sync_flush": also SYNC_FLUSH at 16x16; "sync_master": also
# SYNC_MASTER with a slave), PROFILE ("16x16 64x16", also "sync_flush",
# "sync_master", "pull": CPU profiles of our broker at those points into
# PROFILE_DIR), BASE_PORT (20000; each start
# takes the next 100 ports: keep them below the ephemeral range, where
# outgoing connections collide with them), JAVA (java),
# LOG (a file to keep every mqbench output line in), PULL and ECHO (1; 0
# skips the backlog / wake-up rows or the echo row).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$HERE/../.."
OUT=${1:-/dev/stdout}
POINTS=${POINTS:-"1x1 16x1 4x16 16x16 64x16"}
WARMUP=${WARMUP:-10s}
MEASURE=${MEASURE:-15s}
BACKLOG=${BACKLOG:-500000}
PULL_CONNS=${PULL_CONNS:-4}
WAKE_ROUNDS=${WAKE_ROUNDS:-1000}
QUEUES=${QUEUES:-8}
EXTRA=${EXTRA:-}
PROFILE=${PROFILE:-}
PROFILE_DIR=${PROFILE_DIR:-.}
mkdir -p "$PROFILE_DIR" # a missing directory made the profiled point fail to start
BASE_PORT=${BASE_PORT:-20000}
JAVA=${JAVA:-java}
W=$(mktemp -d /tmp/mqbench-versus.XXXXXX)
RES=$W/results
mkdir -p "$RES" "$W/bin"

APACHE_CP=${APACHE_CLASSPATH:-}
if [ -z "$APACHE_CP" ] && [ -n "${APACHE_HOME:-}" ]; then
  APACHE_CP="$APACHE_HOME/lib/*"
  export ROCKETMQ_HOME=${ROCKETMQ_HOME:-$APACHE_HOME}
fi
IMPLS="ours apache"
if [ -z "$APACHE_CP" ]; then
  echo "versus.sh: APACHE_HOME / APACHE_CLASSPATH unset: measuring ours only" >&2
  IMPLS="ours"
fi

go build -o "$W/bin/mqnamesrv" ./cmd/mqnamesrv
go build -o "$W/bin/mqbroker" ./cmd/mqbroker
go build -o "$W/bin/mqbench" ./cmd/mqbench

PIDS=""
stop_all() { # TERM, then KILL after 20 s, every process this script started
  local p
  for p in $PIDS; do kill "$p" 2>/dev/null || true; done
  for p in $PIDS; do
    for _ in $(seq 1 200); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  PIDS=""
}
cleanup() { stop_all; [ -n "${LOG:-}" ] && cp "$W/log" "$LOG"; rm -rf "$W"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# Ports: ours and Apache's never run at once, but each start gets fresh
# ports so no TIME_WAIT or slow shutdown stands in the way.
NEXT_PORT=$BASE_PORT
take_ports() { NS_PORT=$NEXT_PORT; BROKER_PORT=$((NEXT_PORT + 20)); SLAVE_PORT=$((NEXT_PORT + 40)); NEXT_PORT=$((NEXT_PORT + 100)); }

# broker_conf name id role flush port dir → properties file on stdout
broker_conf() {
  cat <<EOF
brokerClusterName=BenchCluster
brokerName=bench-$1
brokerId=$2
brokerRole=$3
flushDiskType=$4
brokerIP1=127.0.0.1
brokerIP2=127.0.0.1
listenPort=$5
haListenPort=$(($5 + 1))
namesrvAddr=127.0.0.1:$NS_PORT
storePathRootDir=$6
storePathCommitLog=$6/commitlog
autoCreateTopicEnable=true
EOF
}

wait_boot() { # log pid
  for _ in $(seq 1 300); do
    grep -q "boot success" "$1" 2>/dev/null && return 0
    kill -0 "$2" 2>/dev/null || { echo "server exited: $(tail -5 "$1")" >&2; return 1; }
    sleep 0.1
  done
  echo "no boot success in 30 s: $(tail -5 "$1")" >&2
  return 1
}

# run_server impl kind(namesrv|broker) conf log → pid in LAST_PID
run_server() {
  local impl=$1 kind=$2 conf=$3 log=$4 extra=()
  if [ "$impl" = ours ]; then
    [ "$kind" = broker ] && [ -n "${OURS_PROFILE:-}" ] && extra=(-cpuprofile "$OURS_PROFILE")
    HOME=$W/home-ours "$W/bin/mq$kind" -c "$conf" "${extra[@]}" > "$log" 2>&1 &
  else
    local opens="--add-opens java.base/java.nio=ALL-UNNAMED --add-opens java.base/jdk.internal.ref=ALL-UNNAMED --add-exports java.base/sun.nio.ch=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED --add-opens java.base/java.lang=ALL-UNNAMED"
    local gc="-XX:+UseG1GC -XX:G1HeapRegionSize=16m -XX:G1ReservePercent=25 -XX:InitiatingHeapOccupancyPercent=30 -XX:SoftRefLRUPolicyMSPerMB=0"
    if [ "$kind" = namesrv ]; then # runserver.sh: -Xms4g -Xmx4g -Xmn2g, scaled to 1 GiB
      # shellcheck disable=SC2086
      "$JAVA" -server -Xms1g -Xmx1g -Xmn512m $gc -XX:-OmitStackTraceInFastThrow -XX:-UseLargePages $opens \
        -Duser.home="$W/home-apache" -cp "$APACHE_CP" org.apache.rocketmq.namesrv.NamesrvStartup -c "$conf" > "$log" 2>&1 &
    else # runbroker.sh: -Xms8g -Xmx8g, scaled to 1 GiB
      # shellcheck disable=SC2086
      "$JAVA" -server -Xms1g -Xmx1g $gc -XX:-OmitStackTraceInFastThrow -XX:+AlwaysPreTouch -XX:MaxDirectMemorySize=15g \
        -XX:-UseLargePages $opens -Duser.home="$W/home-apache" -cp "$APACHE_CP" \
        org.apache.rocketmq.broker.BrokerStartup -c "$conf" > "$log" 2>&1 &
    fi
  fi
  LAST_PID=$!
  PIDS="$LAST_PID $PIDS"
}

# start impl role flush → BROKER_PID, BROKER_ADDR, POINT_DIR (fresh store)
start() {
  local impl=$1 role=$2 flush=$3 d
  take_ports
  d=$(mktemp -d "$W/$impl.XXXX")
  POINT_DIR=$d
  printf 'listenPort=%s\n' "$NS_PORT" > "$d/namesrv.properties"
  run_server "$impl" namesrv "$d/namesrv.properties" "$d/namesrv.log"
  wait_boot "$d/namesrv.log" "$LAST_PID" || return 1
  broker_conf "$impl" 0 "$role" "$flush" "$BROKER_PORT" "$d/store" > "$d/broker.properties"
  run_server "$impl" broker "$d/broker.properties" "$d/broker.log"
  BROKER_PID=$LAST_PID
  wait_boot "$d/broker.log" "$BROKER_PID" || return 1
  if [ "$role" = SYNC_MASTER ]; then
    broker_conf "$impl" 1 SLAVE "$flush" "$SLAVE_PORT" "$d/slave" > "$d/slave.properties"
    OURS_PROFILE='' run_server "$impl" broker "$d/slave.properties" "$d/slave.log"
    wait_boot "$d/slave.log" "$LAST_PID" || return 1
  fi
  BROKER_ADDR=127.0.0.1:$BROKER_PORT
  sleep 1 # the slave's HA connection, the first registration
}

# drop_stores removes the stopped point's stores (its logs stay): a full
# run writes some 35 GB, and a disk past the brokers' full-disk ratio makes
# the later points fail (SYNC_MASTER's slave was the first to refuse).
drop_stores() { rm -rf "$POINT_DIR/store" "$POINT_DIR/slave"; }

bench() { timeout 900 "$W/bin/mqbench" -s 1024 -queues "$QUEUES" -t BenchVersus "$@" 2>&1 | grep -v 'level=' ; }

# point impl label conns inflight role flush
point() {
  local impl=$1 label=$2 c=$3 n=$4 role=${5:-ASYNC_MASTER} flush=${6:-ASYNC_FLUSH}
  OURS_PROFILE=
  if [ "$impl" = ours ] && [[ " $PROFILE " == *" $label "* ]]; then OURS_PROFILE=$PROFILE_DIR/mqbroker-$label.pprof; fi
  if ! start "$impl" "$role" "$flush"; then
    echo "  $impl $label: servers did not start" >&2
    stop_all
    drop_stores
    return 0
  fi
  bench -mode send -broker "$BROKER_ADDR" -pid "$BROKER_PID" -c "$c" -inflight "$n" -warmup "$WARMUP" -duration "$MEASURE" \
    | tee -a "$W/log" | grep '^RESULT' > "$RES/$impl.$label" || true
  stop_all
  drop_stores
  echo "  $impl $label: $(cat "$RES/$impl.$label")" >&2
}

pull_point() {
  local impl=$1
  OURS_PROFILE=
  if [ "$impl" = ours ] && [[ " $PROFILE " == *" pull "* ]]; then OURS_PROFILE=$PROFILE_DIR/mqbroker-pull.pprof; fi
  if ! start "$impl" ASYNC_MASTER ASYNC_FLUSH; then
    echo "  $impl pull: servers did not start" >&2
    stop_all
    drop_stores
    return 0
  fi
  bench -mode send -broker "$BROKER_ADDR" -pid "$BROKER_PID" -c 16 -inflight 16 -q "$BACKLOG" | sed 's/^RESULT/FILL/' >> "$W/log"
  bench -mode pull -broker "$BROKER_ADDR" -pid "$BROKER_PID" -c "$PULL_CONNS" -q "$BACKLOG" -g bench_versus_drain -duration 300s \
    | tee -a "$W/log" | grep '^RESULT' > "$RES/$impl.pull" || true
  bench -mode wake -broker "$BROKER_ADDR" -q "$WAKE_ROUNDS" -g bench_versus_wake \
    | tee -a "$W/log" | grep '^RESULT' > "$RES/$impl.wake" || true
  stop_all
  drop_stores
  echo "  $impl pull: $(cat "$RES/$impl.pull")" >&2
  echo "  $impl wake: $(cat "$RES/$impl.wake")" >&2
}

echo_point() {
  take_ports
  "$W/bin/mqbench" -mode echo-server -listen "127.0.0.1:$BROKER_PORT" > "$W/echo.log" 2>&1 &
  LAST_PID=$!
  PIDS="$LAST_PID"
  for _ in $(seq 1 50); do grep -q listening "$W/echo.log" && break; sleep 0.1; done
  bench -mode echo -broker "127.0.0.1:$BROKER_PORT" -pid "$LAST_PID" -c 16 -inflight 16 -warmup "$WARMUP" -duration "$MEASURE" \
    | tee -a "$W/log" | grep '^RESULT' > "$RES/echo" || true
  stop_all
  echo "  echo 16x16: $(cat "$RES/echo")" >&2
}

# main is one function, so that bash has parsed all of it before it runs
# (editing this file during a run does not derail the run); "main; exit"
# is one line for the same reason.
main() {
  {
    echo "# versus.sh $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD) $(nproc) cores; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "# warm-up $WARMUP, measured $MEASURE per point; 1 KiB SEND_MESSAGE_V2 (JSON header), $QUEUES queues; backlog $BACKLOG"
  } >> "$OUT"
  for p in $POINTS; do
    for impl in $IMPLS; do point "$impl" "$p" "${p%x*}" "${p#*x}"; done
  done
  for x in $EXTRA; do
    case $x in
      sync_flush) for impl in $IMPLS; do point "$impl" sync_flush 16 16 ASYNC_MASTER SYNC_FLUSH; done ;;
      sync_master) for impl in $IMPLS; do point "$impl" sync_master 16 16 SYNC_MASTER ASYNC_FLUSH; done ;;
    esac
  done
  if [ "${PULL:-1}" = 1 ]; then for impl in $IMPLS; do pull_point "$impl"; done; fi
  if [ "${ECHO:-1}" = 1 ]; then echo_point; fi
  echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT"
  "$W/bin/mqbench" -mode versus-table -results "$RES" -points "$POINTS $EXTRA" >> "$OUT"
}
main; exit $?
