#!/usr/bin/env bash
# `make record-histories`: records the envelope workflow's history of today's version under
# workflows/testdata (its payloads decrypted, to be read and reviewed), on a stack of its own
# like `make test`'s. The replay test (`make test`) replays every file there.
set -euo pipefail
export STACK_DIR="${STACK_DIR:-$(cd "$(dirname "$0")/.." && pwd)/.data/record}"
export STACK_PG_PORT="${STACK_PG_PORT:-5435}" STACK_PG_DB=postgres STACK_PG_FAST=1
export STACK_TEMPORAL_PORT="${STACK_TEMPORAL_PORT:-7235}" STACK_UI=0
export STACK_SMTP_PORT="${STACK_SMTP_PORT:-1027}" STACK_MAIL_HTTP_PORT="${STACK_MAIL_HTTP_PORT:-8027}"
unset DATABASE_URL TEMPORAL_ADDRESS SMTP_URL
. "$(dirname "$0")/stack.sh"
cd "$STACK_ROOT"
trap 'stack_down' EXIT
stack_up
export SOBRE_TEST_DATABASE_URL="$DATABASE_URL" SOBRE_TEST_TEMPORAL_ADDRESS="$TEMPORAL_ADDRESS"
export SOBRE_TEST_SMTP_URL="$SMTP_URL" SOBRE_TEST_MAILPIT_URL="$MAILPIT_URL" SOBRE_TEST_REQUIRE_SERVICES=1
SOBRE_RECORD_HISTORY=1 go test -count=1 -run 'TestEnvelopeLifeCycleOnTheRealServerReplays|TestRecipientEditsContinueAsNewOnTheRealServer|TestStoreOutageOnTheRealServer|TestPickupRunOnTheRealServerReplays' ./workflows
git status --short workflows/testdata
