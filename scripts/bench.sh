#!/usr/bin/env bash
# `make bench`: the benchmarks on real services (a stack of its own under .data/bench), printing
# throughput, p50/p99 latencies and the ratios to a baseline measured in the same run:
#   - the draft API (create, get, search) with 10,000 envelopes in PostgreSQL, against SELECT 1;
#   - the envelope life cycle through the public HTTP API (create with a PDF, distribute, an
#     approver and two signers acting through the signing API, COMPLETED with its seal and mails;
#     200 envelopes, 30 at a time) against the bare Temporal pattern of the same shape (a start,
#     3 validated Updates, 9 no-op regular activities), 30 at a time: the figure of record;
#   - the same life cycle at the store level (drafts made in PostgreSQL, 4 at a time), against a
#     bare workflow that mixes in local activities;
#   - the same life cycle with 3 webhooks subscribed to every event (x-no-webhooks: its rate over
#     the rate without), the outbox alone and with its deliveries; webhook events delivered per
#     second to a local endpoint;
#   - POST /envelope/use with distributeDocument, against plain creates of the same envelope;
#   - a bulk send of 500 rows: rows made and sent per second;
#   - PDF inspection, placeholder search, normalisation of a 10 MB, 100-page upload, and the
#     preflight that refuses a decompression bomb;
#   - the seal, from 1 to 1,000 pages;
#   - a signer account's password hash (argon2id), alone and 32 at once (peak heap bounded).
set -euo pipefail
export STACK_DIR="${STACK_DIR:-$(cd "$(dirname "$0")/.." && pwd)/.data/bench}"
export STACK_PG_PORT="${STACK_PG_PORT:-5435}" STACK_PG_DB=postgres STACK_PG_FAST=1
export STACK_TEMPORAL_PORT="${STACK_TEMPORAL_PORT:-7235}" STACK_UI=0
export STACK_SMTP_PORT="${STACK_SMTP_PORT:-1027}" STACK_MAIL_HTTP_PORT="${STACK_MAIL_HTTP_PORT:-8027}"
unset DATABASE_URL TEMPORAL_ADDRESS SMTP_URL
. "$(dirname "$0")/stack.sh"
cd "$STACK_ROOT"
trap stack_down EXIT
stack_up
export SOBRE_TEST_DATABASE_URL="$DATABASE_URL" SOBRE_TEST_TEMPORAL_ADDRESS="$TEMPORAL_ADDRESS"
export SOBRE_TEST_SMTP_URL="$SMTP_URL" SOBRE_TEST_MAILPIT_URL="$MAILPIT_URL" SOBRE_TEST_REQUIRE_SERVICES=1
# The services' processes, whose CPU the life-cycle benchmark counts (api/bench_cpu_test.go).
mailpit_pid=""
for entry in "${STACK_STARTED[@]}"; do case "$entry" in mailpit:*) mailpit_pid="${entry#mailpit:}" ;; esac; done
export SOBRE_BENCH_PIDS="temporal=$(cat "$STACK_DIR/temporal.pid" 2>/dev/null) postgres=$(head -n 1 "$(pg_cluster_dir)/postmaster.pid" 2>/dev/null) mailpit=$mailpit_pid"
echo "== machine: $(nproc) cores, $(go version | cut -d' ' -f3), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== draft API with 10,000 envelopes (p50/select1: request latency over a SELECT 1 round trip)"
go test -run '^$' -bench 'DraftAPI' -benchtime "${BENCH_REQUESTS:-400x}" ./api | grep -E '^(Benchmark|ok|---)'
echo "== documents from a template with 3 recipients, distributed at once (x-create: over plain creates)"
go test -run '^$' -bench 'UseTemplate' -benchtime "${BENCH_USES:-100x}" ./api | grep -E '^(Benchmark|ok|---)'
echo "== bulk send: rows made and sent per second, one job from the request to its end (ms-to-accept: the job stored and started)"
go test -run '^$' -bench 'BulkSend' -benchtime "${BENCH_BULK_ROWS:-500x}" ./api | grep -E '^(Benchmark|ok|---)'
echo "== envelope life cycle through the HTTP API, 30 at a time, vs the bare Temporal pattern (x-bare: Sobre's rate over the bare rate; 503s: answers retried after Retry-After; NAME-cpu-ms/op: CPU per life cycle of this process, Temporal, PostgreSQL, mailpit)"
go test -run '^$' -bench 'LifeCycleHTTP' -benchtime "${BENCH_HTTP_LIFECYCLES:-200x}" -timeout 30m ./api | grep -E '^(Benchmark|ok|---)'
echo "== envelope life cycle at the store level vs a bare Temporal workflow (x-bare: Sobre's rate over the bare rate)"
go test -run '^$' -bench 'LifeCycle' -benchtime "${BENCH_LIFECYCLES:-80x}" ./workflows | grep -E '^(Benchmark|ok|---)'
echo "== webhooks: events delivered per second to a local endpoint (outbox filled, then dispatched)"
go test -run '^$' -bench 'WebhookDelivery' -benchtime "${BENCH_WEBHOOK_EVENTS:-200x}" ./workflows | grep -E '^(Benchmark|ok|---)'
echo "== PDF (Normalize: a 10 MB, 100-page upload; x-target: time over the 1 s target)"
go test -run '^$' -bench . -benchtime 20x ./pdf | grep -E '^(Benchmark|ok|---)'
echo "== seal: 1 to 1,000 pages, fields on the last page or on every page (x-1page: cost per page over a 1-page document's)"
go test -run '^$' -bench 'BenchmarkSeal' -benchtime "${BENCH_SEALS:-3x}" ./seal | grep -E '^(Benchmark|ok|---)'
echo "== signer accounts: one argon2id password hash, and 32 at once (x-one-hash-memory: peak heap over one hash's 19 MiB)"
go test -run '^$' -bench 'BenchmarkPasswordHash' -benchtime "${BENCH_HASHES:-10x}" ./account | grep -E '^(Benchmark|ok|---)'
