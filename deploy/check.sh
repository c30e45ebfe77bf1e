#!/usr/bin/env bash
# Offline checks of the deployment files: no Docker engine, cluster or network needed. Each check
# runs when its tool is installed and is skipped with a note otherwise; the checks that only need
# python3 with PyYAML hold the files to what Sobre needs (loopback-only ports, pinned images,
# probes on the operations port, non-root, secrets only as files where needed, NetworkPolicies,
# PostgreSQL's certificate verified, Temporal on temporalio/server with its schemas set up by
# temporalio/admin-tools, the Helm values of Temporal's chart, dashboard metric names that exist:
# deploy/check_contents.py). Run by `make test`; exits non-zero when a check fails.
#
#   bash deploy/check.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

passed=0 failed=0 skipped=()
ok() { passed=$((passed + 1)); echo "ok    $1"; }
bad() {
  failed=$((failed + 1))
  echo "FAIL  $1"
  if [ -n "${2:-}" ]; then printf '%s\n' "$2" | sed 's/^/      /'; fi
}
skip() { skipped+=("$1"); echo "skip  $1: $2"; }
# check NAME COMMAND...: runs the command, passes when it exits 0, shows its output when not.
check() {
  local name="$1" out
  shift
  if out="$("$@" 2>&1)"; then ok "$name"; else bad "$name" "$out"; fi
}
have() { command -v "$1" >/dev/null 2>&1; }

dashboard=deploy/grafana/sobre-dashboard.json
yaml_files=(docker-compose.yml deploy/kubernetes/*.yaml deploy/kubernetes/temporal/values.yaml deploy/compose/temporal-dynamicconfig.yaml)

have_pyyaml=0
if have python3 && python3 -c 'import yaml' 2>/dev/null; then have_pyyaml=1; fi

# --- syntax -----------------------------------------------------------------------------------

if have python3; then
  check "JSON: $dashboard parses" python3 -m json.tool "$dashboard"
elif have jq; then
  check "JSON: $dashboard parses" jq empty "$dashboard"
elif have node; then
  check "JSON: $dashboard parses" node -e 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))' "$dashboard"
else
  skip "JSON syntax" "none of python3, jq, node"
fi

if [ "$have_pyyaml" = 1 ]; then
  check "YAML: ${#yaml_files[@]} files parse" python3 -c '
import sys, yaml
for path in sys.argv[1:]:
    with open(path) as f:
        list(yaml.safe_load_all(f))
' "${yaml_files[@]}"
else
  skip "YAML syntax (PyYAML)" "python3 with PyYAML not installed (Debian: python3-yaml)"
fi

if have yamllint; then
  check "yamllint" yamllint --strict -f parsable \
    -d '{extends: default, rules: {line-length: {max: 120}, document-start: disable, comments: {min-spaces-from-content: 1}}}' \
    "${yaml_files[@]}"
else
  skip "yamllint" "not installed (Debian: yamllint)"
fi

shell_files=(deploy/check.sh deploy/check-breaks.sh deploy/compose/register-search-attributes.sh deploy/compose/temporal-schema.sh)
# shellcheck disable=SC2016 # the inner script expands its own arguments
check "shell syntax" bash -c 'for f in "$@"; do case "$f" in *check*) bash -n "$f" ;; *) sh -n "$f" ;; esac || exit 1; done' _ "${shell_files[@]}"
if have shellcheck; then
  check "shellcheck" shellcheck "${shell_files[@]}"
fi

# --- the tools' own validation ----------------------------------------------------------------

compose=()
if have docker && docker compose version >/dev/null 2>&1; then
  compose=(docker compose)
elif have docker-compose && docker-compose version 2>/dev/null | grep -q 'version v\?2'; then
  compose=(docker-compose)
fi
if [ ${#compose[@]} -gt 0 ]; then
  check "compose: ${compose[*]} config" "${compose[@]}" -f docker-compose.yml config -q
else
  skip "compose config" "Docker Compose v2 not installed"
fi

kustomize=()
if have kubectl; then
  kustomize=(kubectl kustomize)
elif have kustomize; then
  kustomize=(kustomize build)
fi
rendered=""
if [ ${#kustomize[@]} -gt 0 ]; then
  rendered="$(mktemp)"
  trap 'rm -f "$rendered"' EXIT
  if out="$("${kustomize[@]}" deploy/kubernetes 2>&1 >"$rendered")"; then
    ok "kubernetes: ${kustomize[*]} deploy/kubernetes"
  else
    bad "kubernetes: ${kustomize[*]} deploy/kubernetes" "$out"
    rendered=""
  fi
else
  skip "kustomize build" "neither kubectl nor kustomize installed"
fi

# --- what Sobre needs of these files ----------------------------------------------------------

if [ "$have_pyyaml" = 1 ]; then
  check "contents: compose, Temporal, kubernetes, Helm values, dashboard, Dockerfile" python3 deploy/check_contents.py "$rendered"
  # The content checks can fail: each rule broken once in a copy must make them fail.
  if have git; then
    check "contents: each rule fails when broken (check-breaks.sh)" bash deploy/check-breaks.sh
  else
    skip "check-breaks" "git not installed"
  fi
else
  skip "contents" "python3 with PyYAML not installed (Debian: python3-yaml)"
fi

summary="deploy checks: $passed ok, $failed failed"
if [ ${#skipped[@]} -gt 0 ]; then
  list="$(IFS=,; echo "${skipped[*]}")"
  summary+=", ${#skipped[@]} skipped (${list//,/, })"
fi
echo "$summary"
[ "$failed" -eq 0 ]
