#!/usr/bin/env bash
# `make run`: the whole system on one machine, in the foreground. Starts PostgreSQL, the Temporal
# dev server with its Web UI and the mailpit sink (each unless its variable points elsewhere),
# then Sobre's API and worker in one process. Ctrl-C stops everything this script started.
set -euo pipefail
. "$(dirname "$0")/stack.sh"
cd "$STACK_ROOT"

cleanup() {
  trap - INT TERM EXIT
  if [ -n "${SOBRE_PID:-}" ]; then stop_pid "$SOBRE_PID" "Sobre"; fi
  stack_down
}
trap cleanup EXIT
trap 'exit 130' INT TERM

started=$(date +%s)
stack_up
go build -o bin/sobre ./cmd/sobre

export SOBRE_HTTP_ADDR="${SOBRE_HTTP_ADDR:-127.0.0.1:8080}"
export SOBRE_PUBLIC_URL="${SOBRE_PUBLIC_URL:-http://$SOBRE_HTTP_ADDR}"
export TEMPORAL_ADDRESS SMTP_URL DATABASE_URL

bin/sobre migrate
key="$(bin/sobre admin ensure-key --file "$STACK_DIR/dev-api-key" --team "Sobre Dev" --email dev@sobre.localhost --user-name "Sobre Developer" --role ADMIN | tail -n 1)"

bin/sobre dev &
SOBRE_PID=$!
for _ in $(seq 1 100); do
  curl -fsS "http://$SOBRE_HTTP_ADDR/healthz" >/dev/null 2>&1 && break
  kill -0 "$SOBRE_PID" 2>/dev/null || { echo "sobre exited" >&2; exit 1; }
  sleep 0.1
done

cat <<EOT

  Sobre is running (ready in $(( $(date +%s) - started )) s). Ctrl-C stops everything.

  API            http://$SOBRE_HTTP_ADDR/api/v2        (OpenAPI: /api/v2/openapi.json)
  Health         http://$SOBRE_HTTP_ADDR/readyz        metrics: /metrics
  Temporal UI    $( [ -n "${STACK_UI:-}" ] && [ "$STACK_UI" = 1 ] && echo "http://127.0.0.1:$STACK_TEMPORAL_UI_PORT" || echo "(headless)")
  Mail UI        ${MAILPIT_URL:-(SMTP_URL points elsewhere)}
  Dev API key    $key
                 (also in $STACK_DIR/dev-api-key)

  Try: curl -H "Authorization: \$(cat $STACK_DIR/dev-api-key)" http://$SOBRE_HTTP_ADDR/api/v2/envelope

EOT
wait "$SOBRE_PID"
