#!/usr/bin/env bash
# Offline checks of the deployment files (no Docker engine or cluster needed): every JSON and
# YAML file parses; the compose file's services, dependencies and loopback-only ports hold
# together; the Kubernetes manifests are complete and the kustomization lists files that exist;
# the Dockerfile builds the binary that exists. Run by `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
py=python3
if ! command -v "$py" >/dev/null || ! "$py" -c 'import yaml' 2>/dev/null; then
  echo "deploy checks: python3 with PyYAML not available; checking JSON only"
  node -e 'JSON.parse(require("fs").readFileSync("deploy/grafana/sobre-dashboard.json","utf8"))'
  exit 0
fi
"$py" - <<'PY'
import json, os, re, sys, yaml

fail = []
def check(ok, msg):
    if not ok:
        fail.append(msg)

dash = json.load(open("deploy/grafana/sobre-dashboard.json"))
check(dash.get("panels"), "dashboard has no panels")
for p in dash.get("panels", []):
    for t in p.get("targets", []):
        check(re.search(r"sobre_|temporal_|go_", t.get("expr", "")), f"panel {p.get('title')}: unexpected metric in {t.get('expr')}")

compose = yaml.safe_load(open("docker-compose.yml"))
services = compose["services"]
for name, svc in services.items():
    for dep in (svc.get("depends_on") or {}):
        check(dep in services, f"compose: {name} depends on unknown service {dep}")
    for port in svc.get("ports", []):
        check(str(port).startswith("127.0.0.1:"), f"compose: {name} publishes {port} beyond loopback")
for needed in ("postgresql", "temporal", "temporal-ui", "mailpit", "api", "worker", "migrate"):
    check(needed in services, f"compose: no {needed} service")
check(services["api"]["command"] == ["serve"] and services["worker"]["command"] == ["worker"], "compose: api/worker commands")

kust = yaml.safe_load(open("deploy/kubernetes/kustomization.yaml"))
for res in kust["resources"]:
    path = os.path.join("deploy/kubernetes", res)
    check(os.path.exists(path), f"kustomization lists missing {res}")
    if not os.path.exists(path):
        continue
    for doc in yaml.safe_load_all(open(path)):
        if doc is None:
            continue
        for key in ("apiVersion", "kind", "metadata"):
            check(key in doc, f"{res}: a document lacks {key}")
        check(doc.get("metadata", {}).get("name"), f"{res}: a {doc.get('kind')} has no name")
        if doc.get("kind") == "Deployment":
            for c in doc["spec"]["template"]["spec"]["containers"]:
                check(c.get("readinessProbe") and c.get("livenessProbe"), f"{res}: container {c['name']} lacks probes")
                check(c["args"][0] in ("serve", "worker"), f"{res}: container {c['name']} runs {c['args']}")

docker = open("deploy/Dockerfile").read()
check("./cmd/sobre" in docker and os.path.isdir("cmd/sobre"), "Dockerfile does not build ./cmd/sobre")

if fail:
    print("deploy checks failed:\n  " + "\n  ".join(fail))
    sys.exit(1)
print(f"deploy checks: ok ({len(services)} compose services, {len(kust['resources'])} manifests, {len(dash['panels'])} dashboard panels)")
PY
