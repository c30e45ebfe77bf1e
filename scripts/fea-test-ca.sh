#!/usr/bin/env bash
# Regenerates the test certification authority of FAO_HASH in testdata/fea (see
# testdata/fea/README.md). The old files are replaced; commit the new ones together.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -f testdata/fea/*.pem testdata/fea/*.key
go run ./scripts/featestca testdata/fea
ls testdata/fea
