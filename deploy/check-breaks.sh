#!/usr/bin/env bash
# Shows that the content checks (deploy/check_contents.py) can fail: in a copy of the files they
# read, it breaks one rule at a time (one replacement in one file), runs the checks, and requires
# them to fail naming that rule; then restores the file. Fails when a break goes unnoticed, when
# the checks pass on the copy before any break, or when a break no longer applies (its text is
# gone from the file). Run by deploy/check.sh.
#
#   bash deploy/check-breaks.sh
set -euo pipefail
cd "$(dirname "$0")/.."

copy="$(mktemp -d)"
trap 'rm -rf "$copy"' EXIT
# What check_contents.py reads: the deployment files and the Go sources (for Sobre's metrics).
git ls-files -z --cached --others --exclude-standard -- docker-compose.yml deploy '*.go' |
  xargs -0 cp --parents -t "$copy"

python3 - "$copy" <<'PY'
import os, shutil, subprocess, sys

copy = sys.argv[1]
dash = "deploy/grafana/sobre-dashboard.json"
values = "deploy/kubernetes/temporal/values.yaml"
# (file, text, replacement, what the checks must then say)
breaks = [
    ("docker-compose.yml", "image: temporalio/server:1.29.1", "image: temporalio/auto-setup:1.29.1", "runs the deprecated image"),
    ("docker-compose.yml", '"127.0.0.1:8025:8025"', '"8025:8025"', "publishes 8025:8025 beyond 127.0.0.1"),
    ("docker-compose.yml", "temporalio/ui:2.42.1", "temporalio/ui:latest", "image temporalio/ui:latest is not pinned"),
    ("docker-compose.yml", "image: temporalio/admin-tools:1.29.1-tctl-1.18.4-cli-1.5.0\n    depends_on:\n      postgresql:",
     "image: temporalio/admin-tools:1.28.0\n    depends_on:\n      postgresql:", "not Temporal's release 1.29.1"),
    ("docker-compose.yml", "      temporal-schema:\n        condition: service_completed_successfully",
     "      postgresql:\n        condition: service_healthy", "Temporal does not wait for temporal-schema"),
    ("docker-compose.yml", "      POSTGRES_SEEDS: postgresql\n      POSTGRES_USER: temporal\n      POSTGRES_PWD",
     "      POSTGRES_SEEDS: otherdb\n      POSTGRES_USER: temporal\n      POSTGRES_PWD", "is not Sobre's"),
    ("docker-compose.yml", '      NUM_HISTORY_SHARDS: "4"\n', "", "NUM_HISTORY_SHARDS is not set"),
    ("docker-compose.yml", "      DBNAME: temporal\n      VISIBILITY_DBNAME: temporal_visibility\n    volumes:\n      - ./deploy/compose/temporal-schema.sh",
     "      DBNAME: temporal2\n      VISIBILITY_DBNAME: temporal_visibility\n    volumes:\n      - ./deploy/compose/temporal-schema.sh", "temporal-schema's DBNAME"),
    ("docker-compose.yml", "DYNAMIC_CONFIG_FILE_PATH: /etc/temporal/config/dynamicconfig/sobre.yaml",
     "DYNAMIC_CONFIG_FILE_PATH: /etc/temporal/config/dynamicconfig/docker.yaml", "DYNAMIC_CONFIG_FILE_PATH"),
    ("deploy/compose/temporal-schema.sh", '  sql --db "$db" update-schema', '  : --db "$db" update-schema', "lacks the step"),
    ("deploy/compose/temporal-schema.sh", ' "$VISIBILITY_DBNAME:visibility"', "", "does not set up"),
    ("deploy/compose/postgres-init.sql", " CREATEDB;", ";", "postgres-init.sql does not create Temporal's role"),
    ("deploy/compose/register-search-attributes.sh", "temporal operator namespace create", "temporal operator namespace describe",
     "nothing creates the namespace"),
    (values, "      numHistoryShards: 512\n", "", "numHistoryShards None is not set"),
    (values, "            pluginName: postgres12\n            databaseName: temporal_visibility",
     "            pluginName: mysql8\n            databaseName: temporal_visibility", "visibility store is not on PostgreSQL"),
    (values, "            manageSchema: true\n            pluginName: postgres12\n            databaseName: temporal\n",
     "            manageSchema: false\n            pluginName: postgres12\n            databaseName: temporal\n", "default store's schema"),
    (values, "            existingSecret: temporal-db-secret\n            secretKey: password\n            maxConns: 10",
     "            password: temporal\n            maxConns: 10", "visibility store's password is not only in a Secret"),
    (values, "              enableHostVerification: true\n              caFile: /etc/temporal/postgresql/ca.crt\n        visibility:",
     "              enableHostVerification: false\n              caFile: /etc/temporal/postgresql/ca.crt\n        visibility:",
     "default store does not verify"),
    (values, "    tag: 1.29.1\n", "    tag: 1.30.0\n", "is not compose's Temporal 1.29.1"),
    (values, "web:\n  enabled: true", "web:\n  enabled: false", "the Web UI is off"),
    (values, "        - name: default\n", "        - name: sobre\n", "does not create Sobre's namespace"),
    (values, "  replicaCount: 2\n  config:", "  replicaCount: 2\n   config:", "yaml"),
    ("deploy/README.md", "1.6.0 --namespace temporal -f", "1.6.0 --namespace temporal-system -f", "is not the chart's frontend"),
    ("deploy/README.md", "- Kubernetes: **512**", "- Kubernetes: **many**", "History shards"),
    (dash, "temporal_sticky_cache_size{", "temporal_sticky_cache_sizes{", "unknown metric temporal_sticky_cache_sizes"),
    (dash, "max(sobre_envelopes_stuck{", "max(sobre_envelopes_stuk{", "unknown metric sobre_envelopes_stuk"),
    (dash, "sum by (instance) (go_goroutines{", "sum by (instance) (up{", "unknown metric up"),
    (dash, '"uid": "sobre-overview",', '"uid": "sobre-overview",,', "JSONDecodeError"),
    ("deploy/grafana/exported-metrics.txt", "\ntemporal_worker_task_slots_available\n", "\n", "unknown metric temporal_worker_task_slots_available"),
    ("cmd/sobre/repair_watch.go", 'Name: "sobre_envelopes_stuck"', 'Name: "sobre_envelopes_left"', "unknown metric sobre_envelopes_stuck"),
]

def run():
    p = subprocess.run([sys.executable, "deploy/check_contents.py", ""], cwd=copy, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr

code, out = run()
if code != 0:
    sys.exit("the checks fail on the unbroken copy:\n" + out)
failures = 0
for path, old, new, expect in breaks:
    target = os.path.join(copy, path)
    text = open(target, encoding="utf-8").read()
    if text.count(old) != 1:
        print(f"FAIL  {path}: the text to break is found {text.count(old)} times, not once: {old!r}")
        failures += 1
        continue
    shutil.copy(target, target + ".orig")
    open(target, "w", encoding="utf-8").write(text.replace(old, new))
    code, out = run()
    shutil.move(target + ".orig", target)
    if code == 0 or expect.lower() not in out.lower():
        print(f"FAIL  {path}: {old!r} -> {new!r} went unnoticed (want {expect!r}); the checks said:\n{out}")
        failures += 1
    else:
        print(f"ok    {path}: {old.strip()[:60]!r} broken -> {expect}")
print(f"{len(breaks)} breaks, {failures} unnoticed")
sys.exit(1 if failures else 0)
PY
