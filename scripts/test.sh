#!/usr/bin/env bash
# `make test`: the whole suite against real services. Starts a test stack of its own (PostgreSQL,
# Temporal dev server, mailpit on ports apart from `make run`'s, state under .data/test), runs the
# Go tests (unit, integration, workflow, fuzz seeds and a short fuzz run), the offline checks of
# deploy/, then the end-to-end tests: the real Sobre binary driven by the Documenso TypeScript
# SDK. Stops what it started.
set -euo pipefail
export STACK_DIR="${STACK_DIR:-$(cd "$(dirname "$0")/.." && pwd)/.data/test}"
export STACK_PG_PORT="${STACK_PG_PORT:-5434}" STACK_PG_DB=postgres STACK_PG_FAST=1
export STACK_TEMPORAL_PORT="${STACK_TEMPORAL_PORT:-7234}" STACK_UI=0
export STACK_SMTP_PORT="${STACK_SMTP_PORT:-1026}" STACK_MAIL_HTTP_PORT="${STACK_MAIL_HTTP_PORT:-8026}"
# The suite always runs on its own stack, whatever the caller's environment points at.
unset DATABASE_URL TEMPORAL_ADDRESS SMTP_URL
. "$(dirname "$0")/stack.sh"
cd "$STACK_ROOT"

cleanup() {
  trap - INT TERM EXIT
  if [ -n "${SOBRE_PID:-}" ]; then stop_pid "$SOBRE_PID" "Sobre (e2e)"; fi
  if [ -n "${CLAVEUNICA_PID:-}" ]; then stop_pid "$CLAVEUNICA_PID" "local Clave Única (e2e)"; fi
  stack_down
}
trap cleanup EXIT
trap 'exit 130' INT TERM

stack_up
# The browser tests drive Debian's Chromium; the FAO_HASH tests sign with openssl; the seal tests
# check PDFs with poppler's pdfsig, pdftotext and pdftoppm, and with qpdf; deploy/check.sh reads
# the deployment files with python3's yaml, yamllint and shellcheck.
ensure_debian_packages chromium:chromium openssl:openssl pdfsig:poppler-utils qpdf:qpdf \
  yamllint:yamllint shellcheck:shellcheck
ensure_python_modules yaml:python3-yaml
# Test databases of earlier runs.
"$STACK_PG_BIN/psql" -X -q -h 127.0.0.1 -p "$STACK_PG_PORT" -U sobre -d postgres -tAc \
  "SELECT datname FROM pg_database WHERE datname LIKE 'sobre\_t%'" | while read -r db; do
  [ -n "$db" ] && "$STACK_PG_BIN/psql" -X -q -h 127.0.0.1 -p "$STACK_PG_PORT" -U sobre -d postgres -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)"
done

export SOBRE_TEST_DATABASE_URL="$DATABASE_URL"
export SOBRE_TEST_TEMPORAL_ADDRESS="$TEMPORAL_ADDRESS"
export SOBRE_TEST_SMTP_URL="$SMTP_URL"
export SOBRE_TEST_MAILPIT_URL="$MAILPIT_URL"
export SOBRE_TEST_REQUIRE_SERVICES=1
# TEST_PARTS picks parts of the suite (`make e2e` runs only the end-to-end part, E2E_TESTS picks
# its files); `make test` runs them all.
parts="${TEST_PARTS:-go fuzz deploy e2e}"
part() { [[ " $parts " == *" $1 "* ]]; }

if part go; then
echo "== make lint (go vet, gofmt, workflowcheck, staticcheck)"
make --no-print-directory lint
echo "== go test (race detector)"
go test -race -count=1 -timeout=25m ./...
echo "== go test: every auth configuration completes (without the race detector, which skips it)"
go test -count=1 -run '^TestEveryAuthCombinationCompletes$' ./api/
fi

if part faults; then
echo "== fault tests (internal/faulttest, SOBRE_FAULT_BATCH=${SOBRE_FAULT_BATCH:-12})"
go test -count=1 -v -timeout=90m ./internal/faulttest/ | grep -E '^(---|ok|FAIL|PASS)|_test\.go:[0-9]+:'
fi

if part fuzz; then
echo "== fuzz (short runs)"
# A count, not a duration: Go 1.26's fuzz coordinator can report its own -fuzztime deadline as a
# failure ("context deadline exceeded", no failing input; golang/go#75804). A count has no deadline,
# so a slow machine only makes the run longer; a hanging input still fails on go test's -timeout.
for target in ${FUZZ_TARGETS:-$(go run ./scripts/fuzztargets)}; do
  pkg="${target%%:*}" fn="${target##*:}"
  if ! go test -run='^$' -fuzz="^${fn}\$" -fuzztime="${FUZZ_TIME:-1000x}" -timeout=5m "$pkg" >"$STACK_DIR/fuzz.log" 2>&1; then
    echo "FAIL $pkg $fn"; grep -v '^fuzz: elapsed' "$STACK_DIR/fuzz.log" | tail -n 40; exit 1
  fi
  echo "ok   $pkg $fn"
done
fi

if part deploy; then
echo "== deploy checks"
bash deploy/check.sh
fi

if part e2e && [ -f e2e/package.json ]; then
  echo "== end-to-end (Documenso SDK against the real binary)"
  go build -o bin/sobre ./cmd/sobre
  e2e_db="sobre_t_e2e"
  "$STACK_PG_BIN/psql" -X -q -h 127.0.0.1 -p "$STACK_PG_PORT" -U sobre -d postgres -c "CREATE DATABASE $e2e_db"
  export DATABASE_URL="postgres://sobre@127.0.0.1:$STACK_PG_PORT/$e2e_db?sslmode=disable"
  export SOBRE_HTTP_ADDR="127.0.0.1:${E2E_PORT:-18080}" SOBRE_PUBLIC_URL="http://127.0.0.1:${E2E_PORT:-18080}"
  # Readiness and metrics are on the operations listener, 20 ports above the API's by default.
  export SOBRE_METRICS_ADDR="127.0.0.1:${E2E_METRICS_PORT:-$(( ${E2E_PORT:-18080} + 20 ))}"
  export SOBRE_TASK_QUEUE="sobre-e2e-$$" SOBRE_LOG_LEVEL=warn
  # The end-to-end tests' webhook receivers listen on 127.0.0.1.
  export SOBRE_WEBHOOK_ALLOW_PRIVATE=true
  # The local Clave Única and the test CA of FAO_HASH.
  export SOBRE_CLAVEUNICA_DEV_ADDR="127.0.0.1:${E2E_CLAVEUNICA_PORT:-18091}"
  export CLAVEUNICA_ISSUER_URL="http://$SOBRE_CLAVEUNICA_DEV_ADDR/openid"
  export SOBRE_FEA_TRUST_ROOTS="$STACK_ROOT/testdata/fea/root.pem" SOBRE_SEAL_DEV_DIR="$STACK_DIR"
  bin/sobre claveunica-dev 2>"$STACK_DIR/e2e-claveunica.log" &
  CLAVEUNICA_PID=$!
  bin/sobre dev 2>"$STACK_DIR/e2e-sobre.log" &
  SOBRE_PID=$!
  for _ in $(seq 1 200); do curl -fsS "http://$SOBRE_METRICS_ADDR/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
  (cd e2e && { [ -d node_modules ] && [ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund --loglevel=error; })
  export SOBRE_E2E_URL="http://$SOBRE_HTTP_ADDR" SOBRE_E2E_PID="$SOBRE_PID"
  export SOBRE_E2E_ADMIN="$STACK_ROOT/bin/sobre" SOBRE_E2E_ARTIFACTS="$STACK_ROOT/e2e/artifacts" SOBRE_E2E_PSQL="$STACK_PG_BIN/psql"
  (cd e2e && node --test --test-concurrency=1 ${E2E_TESTS:-tests/})
fi
echo "== all tests passed ($parts)"
