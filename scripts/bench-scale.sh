#!/usr/bin/env bash
# `make bench-scale`: the read path on a million envelopes (docs/scale.md). A PostgreSQL of its own
# under .data/bench-scale (port 5437); the first run seeds it with `sobre seed` (printing the time),
# later runs reuse it (after applying the migrations added since, printing their time). Then 20
# concurrent clients read through the real HTTP API (the api handler in process, the real
# PostgreSQL): get by id, a list page, a title search, a recipient-email search; p50/p99 of each,
# the machine, and the EXPLAIN (ANALYZE, BUFFERS) plans of every statement of each request,
# written to docs/scale/<query>.txt.
#   SCALE_ENVELOPES  how many envelopes to seed      [1000000]
#   SCALE_CLIENTS    concurrent clients              [20]
#   SCALE_REQUESTS   requests per query              [4000]
#   SCALE_QUERIES    only these, comma-separated (get-by-id,list-page,title-search,email-search) [all]
set -euo pipefail
export STACK_DIR="${STACK_DIR:-$(cd "$(dirname "$0")/.." && pwd)/.data/bench-scale}"
export STACK_PG_PORT="${STACK_PG_PORT:-5437}" STACK_PG_DB=postgres STACK_PG_FAST=1
unset DATABASE_URL TEMPORAL_ADDRESS SMTP_URL
. "$(dirname "$0")/stack.sh"
cd "$STACK_ROOT"
trap stack_down EXIT
pg_up
psql=(psql -X -q -h 127.0.0.1 -p "$STACK_PG_PORT" -U sobre -d "$STACK_PG_DB" -tA)
# Memory for a million envelopes' working set (about 1.5 GB with indexes), planner costs for data
# in memory, and auto_explain available to the plans step.
if [ "$("${psql[@]}" -c 'SHOW shared_buffers')" != 2GB ]; then
  "${psql[@]}" -c "ALTER SYSTEM SET shared_buffers = '2GB'" -c "ALTER SYSTEM SET effective_cache_size = '8GB'" \
    -c "ALTER SYSTEM SET random_page_cost = 1.1" -c "ALTER SYSTEM SET max_wal_size = '8GB'" \
    -c "ALTER SYSTEM SET log_line_prefix = ''"
  # Restarted onto its log file, where the plans step reads auto_explain's output.
  pg_as_owner "$STACK_PG_BIN/pg_ctl" -D "$(pg_cluster_dir)" -l "$(pg_cluster_dir)/server.log" -w -t 120 restart >/dev/null
fi
go build -o bin/sobre ./cmd/sobre
echo "== machine: $(nproc) cores, $(go version | cut -d' ' -f3), $("${psql[@]}" -c 'SHOW server_version' | cut -d' ' -f1) PostgreSQL, load average $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$("${psql[@]}" -c "SELECT count(*) FROM pg_tables WHERE tablename = 'teams'")" = 1 ] &&
   [ "$("${psql[@]}" -c "SELECT count(*) FROM teams WHERE url = 'seed-1'")" = 1 ]; then
  echo "== seeded already: $("${psql[@]}" -c 'SELECT count(*) FROM envelopes') envelopes (remove .data/bench-scale to seed again)"
  # Migrations added since the seed apply to the seeded rows, as in a deployment that upgrades.
  start=$(date +%s); SOBRE_LOG_LEVEL=warn bin/sobre migrate; echo "== migrated in $(($(date +%s) - start)) s"
else
  echo "== seeding ${SCALE_ENVELOPES:-1000000} envelopes (sobre seed)"
  SOBRE_LOG_LEVEL=warn bin/sobre seed --envelopes "${SCALE_ENVELOPES:-1000000}" --teams 10
fi
mkdir -p docs/scale
echo "== reads through the HTTP API at ${SCALE_CLIENTS:-20} concurrent clients (team Seed 1, its admin)"
SOBRE_SCALE_DATABASE_URL="$DATABASE_URL" SOBRE_SCALE_PG_LOG="$(pg_cluster_dir)/server.log" SOBRE_SCALE_PLANS="$STACK_ROOT/docs/scale" \
  SOBRE_SCALE_CLIENTS="${SCALE_CLIENTS:-20}" SOBRE_SCALE_REQUESTS="${SCALE_REQUESTS:-4000}" SOBRE_SCALE_QUERIES="${SCALE_QUERIES:-}" \
  go test -run '^$' -bench 'ScaleReads' -benchtime 1x -timeout 60m ./api | grep -E '^(Benchmark|ok|---|    bench)'
