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
  if [ -n "${CLAVEUNICA_PID:-}" ]; then stop_pid "$CLAVEUNICA_PID" "local Clave Única"; fi
  if [ -n "${CODEC_PID:-}" ]; then stop_pid "$CODEC_PID" "codec server"; fi
  stack_down
}
trap cleanup EXIT
trap 'exit 130' INT TERM

started=$(date +%s)
# Temporal's payloads are encrypted: its Web UI decrypts them through `sobre codec-server`.
export SOBRE_CODEC_ADDR="${SOBRE_CODEC_ADDR:-127.0.0.1:8234}"
export SOBRE_CODEC_CORS_ORIGINS="${SOBRE_CODEC_CORS_ORIGINS:-http://127.0.0.1:$STACK_TEMPORAL_UI_PORT,http://localhost:$STACK_TEMPORAL_UI_PORT}"
STACK_UI_CODEC_ENDPOINT="${STACK_UI_CODEC_ENDPOINT:-http://$SOBRE_CODEC_ADDR}"
stack_up
go build -o bin/sobre ./cmd/sobre

export SOBRE_HTTP_ADDR="${SOBRE_HTTP_ADDR:-127.0.0.1:8080}"
export SOBRE_PUBLIC_URL="${SOBRE_PUBLIC_URL:-http://$SOBRE_HTTP_ADDR}"
export SOBRE_METRICS_ADDR="${SOBRE_METRICS_ADDR:-127.0.0.1:9090}"
# Webhooks may reach a receiver on this machine (`sobre webhook-listen`, on 127.0.0.1:9911).
export SOBRE_WEBHOOK_ALLOW_PRIVATE="${SOBRE_WEBHOOK_ALLOW_PRIVATE:-true}"
export TEMPORAL_ADDRESS SMTP_URL DATABASE_URL

bin/sobre migrate
key="$(bin/sobre admin ensure-key --file "$STACK_DIR/dev-api-key" --team "Sobre Dev" --email dev@sobre.localhost --user-name "Sobre Developer" --role ADMIN | tail -n 1)"

# The local Clave Única (unless CLAVEUNICA_ISSUER_URL names another provider) and the test CA of
# FAO_HASH (unless SOBRE_FEA_TRUST_ROOTS names real roots): development stand-ins.
export SOBRE_CLAVEUNICA_DEV_ADDR="${SOBRE_CLAVEUNICA_DEV_ADDR:-127.0.0.1:8091}"
export CLAVEUNICA_ISSUER_URL="${CLAVEUNICA_ISSUER_URL:-http://$SOBRE_CLAVEUNICA_DEV_ADDR/openid}"
export SOBRE_FEA_TRUST_ROOTS="${SOBRE_FEA_TRUST_ROOTS:-$STACK_ROOT/testdata/fea/root.pem}"
if [ "$CLAVEUNICA_ISSUER_URL" = "http://$SOBRE_CLAVEUNICA_DEV_ADDR/openid" ]; then
  bin/sobre claveunica-dev &
  CLAVEUNICA_PID=$!
fi

if [ "$STACK_UI" = 1 ]; then
  bin/sobre codec-server &
  CODEC_PID=$!
fi

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
  Readiness      http://$SOBRE_METRICS_ADDR/readyz        metrics: /metrics (liveness: /healthz on both)
  Temporal UI    $( [ -n "${STACK_UI:-}" ] && [ "$STACK_UI" = 1 ] && echo "http://127.0.0.1:$STACK_TEMPORAL_UI_PORT  (payloads decrypted by the codec server on http://$SOBRE_CODEC_ADDR)" || echo "(headless)")
  Mail UI        ${MAILPIT_URL:-(SMTP_URL points elsewhere)}
  Clave Única    $CLAVEUNICA_ISSUER_URL  (signing pages: {SOBRE_PUBLIC_URL}/sign/{token}, links in the mails)
  Dev API key    $key
                 (also in $STACK_DIR/dev-api-key)

  Try: curl -H "Authorization: \$(cat $STACK_DIR/dev-api-key)" http://$SOBRE_HTTP_ADDR/api/v2/envelope

EOT
wait "$SOBRE_PID"
