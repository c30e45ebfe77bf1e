#!/usr/bin/env bash
# `make load`, `make load-pending`, `make load-sustained`: the real sobre binary run as separate
# API and worker processes on a stack of their own (.data/load: PostgreSQL 5438, Temporal 7238,
# mailpit 1028/8028), driven from outside through the public API by sobre-load
# (internal/loadtest). LOAD_MODES picks what runs, in order:
#   lifecycle  LOAD_N (200) life cycles, LOAD_C (30) at a time, with 1 API + 1 worker, then with
#              2 APIs + 2 workers (round-robin over the APIs); both rates and their ratio, then
#              the checks (COMPLETED, each action once, no mail twice) after each;
#   pending    LOAD_PENDING (10000) envelopes distributed and left pending, the processes'
#              memory, then all signed; the time of each phase;
#   sustained  vegeta's mixed traffic: a step search for the highest rate with p99 < 100 ms and
#              no error, then LOAD_DURATION (5m) at that rate; memory at start and end.
# The processes run with no rate limits and no mail quota: the load is the point.
set -euo pipefail
export STACK_DIR="${STACK_DIR:-$(cd "$(dirname "$0")/.." && pwd)/.data/load}"
export STACK_PG_PORT="${STACK_PG_PORT:-5438}" STACK_PG_DB=postgres STACK_PG_FAST=1
export STACK_TEMPORAL_PORT="${STACK_TEMPORAL_PORT:-7238}" STACK_UI=0
export STACK_SMTP_PORT="${STACK_SMTP_PORT:-1028}" STACK_MAIL_HTTP_PORT="${STACK_MAIL_HTTP_PORT:-8028}"
LOAD_MODES="${LOAD_MODES:-lifecycle}"
LOAD_API_PORT="${LOAD_API_PORT:-18480}" # API i listens on LOAD_API_PORT+i, its operations listener on +100
unset DATABASE_URL TEMPORAL_ADDRESS SMTP_URL
. "$(dirname "$0")/stack.sh"
cd "$STACK_ROOT"

PIDS=()
stop_processes() {
  local pid
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  PIDS=()
}
trap 'stop_processes; stack_down' EXIT
stack_up

echo "== machine: $(nproc) cores, $(go version | cut -d' ' -f3), $(awk '/MemTotal/ {printf "%.1f GB", $2/1e6}' /proc/meminfo) memory"
mkdir -p "$STACK_DIR/bin" "$STACK_DIR/logs" "$STACK_DIR/seal"
go build -o "$STACK_DIR/bin/sobre" ./cmd/sobre
go build -o "$STACK_DIR/bin/sobre-load" ./internal/loadtest/cmd/sobre-load

# Each mode gets a fresh database, so that one's rows do not slow the next.
fresh_database() {
  local db="load_$1" psql=("$STACK_PG_BIN/psql" -X -q -h 127.0.0.1 -p "$STACK_PG_PORT" -U sobre -d postgres)
  "${psql[@]}" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db"
  export DATABASE_URL="postgres://sobre@127.0.0.1:$STACK_PG_PORT/$db?sslmode=disable"
  export SOBRE_TASK_QUEUE="load-$1-$$" SOBRE_SEAL_DEV_DIR="$STACK_DIR/seal" SOBRE_LOG_LEVEL=warn SOBRE_SHUTDOWN_TIMEOUT=5s
  export SOBRE_RATE_LIMIT_IP=0 SOBRE_RATE_LIMIT_API_KEY=0 SOBRE_RATE_LIMIT_SIGNING_LINK=0 SOBRE_MAIL_QUOTA=0
  "$STACK_DIR/bin/sobre" migrate >/dev/null
  SOBRE_LOAD_KEY="$("$STACK_DIR/bin/sobre" admin create-key --team Carga --email "owner@load.test" --role ADMIN | tail -n 1)"
  export SOBRE_LOAD_KEY
}

# start KIND I starts API or worker process I (1, 2, ...) in the background; PROCS and APIS grow.
PROCS="" APIS=""
start() {
  local kind="$1" i="$2" port=$((LOAD_API_PORT + $2)) pid
  if [ "$kind" = api ]; then
    SOBRE_HTTP_ADDR="127.0.0.1:$port" SOBRE_PUBLIC_URL="http://127.0.0.1:$port" SOBRE_METRICS_ADDR="127.0.0.1:$((port + 100))" \
      "$STACK_DIR/bin/sobre" serve >"$STACK_DIR/logs/api-$i.log" 2>&1 &
    pid=$!
    local n
    for n in $(seq 1 300); do curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
    APIS="${APIS:+$APIS,}http://127.0.0.1:$port"
  else
    SOBRE_METRICS_ADDR="127.0.0.1:$((port + 200))" "$STACK_DIR/bin/sobre" worker >"$STACK_DIR/logs/worker-$i.log" 2>&1 &
    pid=$!
    local n
    for n in $(seq 1 300); do curl -fsS "http://127.0.0.1:$((port + 200))/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
  fi
  PIDS+=("$pid")
  PROCS="${PROCS:+$PROCS,}$kind-$i=$pid"
}

# load runs sobre-load; a run that finds problems marks the whole as failed and the next goes on.
FAILED=0
load() { "$STACK_DIR/bin/sobre-load" "$@" -mailpit "$MAILPIT_URL" -api "$APIS" -procs "$PROCS" || FAILED=1; }

for mode in $LOAD_MODES; do
  fresh_database "$mode"
  PROCS="" APIS=""
  start api 1; start worker 1
  case "$mode" in
    lifecycle)
      echo "== envelope life cycle through the public API (create with PDF, distribute, approver, 2 signers, COMPLETED with seal and mails)"
      load lifecycle -label "1 API + 1 worker" -n "${LOAD_N:-200}" -c "${LOAD_C:-30}" >"$STACK_DIR/lifecycle-1.txt"; cat "$STACK_DIR/lifecycle-1.txt"
      start api 2; start worker 2
      load lifecycle -label "2 APIs + 2 workers" -n "${LOAD_N:-200}" -c "${LOAD_C:-30}" >"$STACK_DIR/lifecycle-2.txt"; cat "$STACK_DIR/lifecycle-2.txt"
      one="$(awk '$1 == "rate" {print $2}' "$STACK_DIR/lifecycle-1.txt")" two="$(awk '$1 == "rate" {print $2}' "$STACK_DIR/lifecycle-2.txt")"
      awk -v a="$one" -v b="$two" 'BEGIN {printf "== lifecycles/s: 1 API + 1 worker %.2f, 2 APIs + 2 workers %.2f, ratio %.2f\n", a, b, (a > 0 ? b / a : 0)}'
      ;;
    pending)
      echo "== ${LOAD_PENDING:-10000} envelopes pending at once, then all signed"
      load pending -n "${LOAD_PENDING:-10000}" -c "${LOAD_C:-30}" -sign="${LOAD_PENDING_SIGN:-true}"
      ;;
    sustained)
      echo "== sustained mixed traffic (vegeta): 70% reads, 20% creates, 10% signing actions"
      load sustained -duration "${LOAD_DURATION:-5m}"
      ;;
    *) echo "unknown mode $mode (LOAD_MODES: lifecycle, pending, sustained)" >&2; exit 2 ;;
  esac
  stop_processes
done
exit "$FAILED"
