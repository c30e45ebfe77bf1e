#!/usr/bin/env bash
# Builds the mailpit SMTP sink (with its web UI) into bin/mailpit, once.
# `go install mailpit@version` is refused by the module proxy's version listing, so the module is
# fetched into a scratch module; its UI bundle is not in the module zip and is built with npm.
set -euo pipefail
version="${MAILPIT_VERSION:-1.30.5}"
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/bin/mailpit"
stamp="$root/bin/.mailpit-$version"
if [ -x "$out" ] && [ -f "$stamp" ]; then
  exit 0
fi
mkdir -p "$root/bin"
echo "building mailpit v$version into bin/ (first time only)..." >&2
work="$(mktemp -d)"
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work"
go mod init sobre.local/mailpit-build >/dev/null 2>&1
# go get lists every module it adds, and warns of a retracted version that mailpit's SQLite
# driver pins (modernc.org/libc; the driver needs that exact version): said only if it fails.
GOFLAGS=-mod=mod go get "github.com/axllent/mailpit@v$version" >"$work/get.log" 2>&1 || { cat "$work/get.log" >&2; exit 1; }
src="$(go list -m -f '{{.Dir}}' github.com/axllent/mailpit)"
cp -r "$src" "$work/mailpit"
chmod -R u+w "$work/mailpit"
cd "$work/mailpit"
if command -v npm >/dev/null 2>&1; then
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
  npm run build >/dev/null
else
  echo "npm not found: mailpit is built without its web UI (the API on :8025 still works)" >&2
fi
go build -trimpath -ldflags="-s -w -X github.com/axllent/mailpit/config.Version=v$version" -o "$out" .
touch "$stamp"
