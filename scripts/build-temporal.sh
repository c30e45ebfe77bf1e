#!/usr/bin/env bash
# Builds the Temporal CLI (which carries the dev server and its Web UI) into bin/temporal, once.
# The CLI stays out of Sobre's go.mod: it pulls in about 400 modules.
set -euo pipefail
version="${TEMPORAL_CLI_VERSION:-1.5.1}"
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/bin/temporal"
if [ -x "$out" ] && "$out" --version 2>/dev/null | grep -q "$version"; then
  exit 0
fi
mkdir -p "$root/bin"
echo "building temporal CLI v$version into bin/ (first time only, a few minutes)..." >&2
GOBIN="$root/bin" GOFLAGS=-mod=mod go install \
  -ldflags="-s -w -X github.com/temporalio/cli/temporalcli.Version=$version" \
  "github.com/temporalio/cli/cmd/temporal@v$version"
