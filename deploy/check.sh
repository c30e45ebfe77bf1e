#!/usr/bin/env bash
# Offline checks of the deployment files: no Docker engine, cluster or network needed. Each check
# runs when its tool is installed and is skipped with a note otherwise; the checks that only need
# python3 with PyYAML hold the files to what Sobre needs (loopback-only ports, pinned images,
# probes on the operations port, non-root, secrets only as files where needed, NetworkPolicies,
# PostgreSQL's certificate verified, dashboard metric names that Sobre exports). Run by `make test`; exits non-zero
# when a check fails.
#
#   bash deploy/check.sh
set -uo pipefail
cd "$(dirname "$0")/.."

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
yaml_files=(docker-compose.yml deploy/kubernetes/*.yaml)

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

check "shell syntax" bash -c 'bash -n deploy/check.sh && sh -n deploy/compose/register-search-attributes.sh'
if have shellcheck; then
  check "shellcheck" shellcheck deploy/check.sh deploy/compose/register-search-attributes.sh
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
  check "contents: compose, kubernetes, dashboard, Dockerfile" python3 - "$rendered" <<'PY'
import glob, json, os, re, sys, yaml

rendered = sys.argv[1]
problems = []
def need(cond, msg):
    if not cond:
        problems.append(msg)

# Compose: the services, their order, loopback-only ports, pinned images, files that exist.
compose = yaml.safe_load(open("docker-compose.yml"))
services = compose.get("services", {})
for name in ("postgresql", "temporal", "temporal-search-attributes", "temporal-ui", "mailpit",
             "migrate", "api", "worker"):
    need(name in services, f"compose: no service {name}")
for name, svc in services.items():
    deps = svc.get("depends_on") or {}
    for dep in deps:
        need(dep in services, f"compose: {name} depends on unknown service {dep}")
    for port in svc.get("ports", []):
        need(str(port).startswith("127.0.0.1:"), f"compose: {name} publishes {port} beyond 127.0.0.1")
    image = svc.get("image", "")
    if image and image != "sobre:local":
        need(re.search(r":[\w.-]+$", image) and not image.endswith(":latest"), f"compose: {name} image {image} is not pinned")
    for vol in svc.get("volumes", []):
        src = str(vol).split(":")[0]
        if src.startswith("./"):
            need(os.path.exists(src), f"compose: {name} mounts missing {src}")
    build = svc.get("build")
    if build:
        need(os.path.exists(os.path.join(build.get("context", "."), build.get("dockerfile", "Dockerfile"))),
             f"compose: {name} builds from a missing Dockerfile")
for name, sec in (compose.get("secrets") or {}).items():
    need(os.path.exists(sec.get("file", "")), f"compose: secret {name} names a missing file")
for name in ("api", "worker"):
    need("audit-key" in ((services.get(name) or {}).get("secrets") or []), f"compose: {name} lacks the shared audit key")
commands = {name: (services.get(name) or {}).get("command") for name in ("migrate", "api", "worker")}
need(commands == {"migrate": ["migrate"], "api": ["serve"], "worker": ["worker"]}, f"compose: sobre commands {commands}")
for name in ("api", "worker"):
    deps = (services.get(name) or {}).get("depends_on") or {}
    for dep in ("migrate", "temporal-search-attributes"):
        need(isinstance(deps, dict) and (deps.get(dep) or {}).get("condition") == "service_completed_successfully",
             f"compose: {name} does not wait for {dep} to complete")
temporal_image = (services.get("temporal") or {}).get("image", "")
need(re.match(r"temporalio/auto-setup:1\.29\.", temporal_image), f"compose: Temporal image {temporal_image} is not 1.29")
need((services.get("temporal") or {}).get("environment", {}).get("DB") == "postgres12", "compose: Temporal not on PostgreSQL")
script = open("deploy/compose/register-search-attributes.sh").read()
for attr in ("EnvelopeId", "EnvelopeStatus", "TeamId", "WebhookId"):
    need(attr in script, f"compose: search attribute {attr} is not registered")

# Kubernetes, as kustomize renders it (or the files themselves without kustomize).
if rendered:
    docs = [d for d in yaml.safe_load_all(open(rendered)) if d]
else:
    kust = yaml.safe_load(open("deploy/kubernetes/kustomization.yaml"))
    docs = []
    for res in kust.get("resources", []):
        path = os.path.join("deploy/kubernetes", res)
        need(os.path.exists(path), f"kubernetes: kustomization lists missing {res}")
        if os.path.exists(path):
            docs += [d for d in yaml.safe_load_all(open(path)) if d]
kinds = {}
for d in docs:
    kinds.setdefault(d.get("kind"), []).append(d)
    need(d.get("apiVersion") and d.get("metadata", {}).get("name"), f"kubernetes: a {d.get('kind')} lacks apiVersion or name")
for kind in ("Namespace", "ConfigMap", "Secret", "Job", "Deployment", "Service", "PodDisruptionBudget"):
    need(kind in kinds, f"kubernetes: no {kind}")
def pod_checks(what, spec, want_probes):
    sc = spec.get("securityContext", {})
    need(sc.get("runAsNonRoot") is True and isinstance(sc.get("runAsUser"), int) and sc.get("runAsUser") > 0,
         f"kubernetes: {what} does not run as a numeric non-root user")
    for c in spec.get("initContainers", []) + spec.get("containers", []):
        csc = c.get("securityContext", {})
        need(csc.get("readOnlyRootFilesystem") is True and csc.get("allowPrivilegeEscalation") is False,
             f"kubernetes: {what}/{c['name']} root filesystem writable or privilege escalation allowed")
        need(c.get("resources", {}).get("requests") and c.get("resources", {}).get("limits"),
             f"kubernetes: {what}/{c['name']} has no resource requests and limits")
    for c in spec.get("containers", []) if want_probes else []:
        paths = {p: (c.get(p) or {}).get("httpGet", {}).get("path") for p in ("readinessProbe", "livenessProbe")}
        need(paths == {"readinessProbe": "/readyz", "livenessProbe": "/healthz"}, f"kubernetes: {what}/{c['name']} probes {paths}")
        # Readiness (and metrics) are served on the operations listener only: SOBRE_METRICS_ADDR.
        ports = {p.get("name"): p.get("containerPort") for p in c.get("ports", [])}
        need(ports.get("ops") == 9090 and (c.get("readinessProbe") or {}).get("httpGet", {}).get("port") == "ops",
             f"kubernetes: {what}/{c['name']} readiness is not probed on the operations port 9090")
args = {}
for dep in kinds.get("Deployment", []):
    tpl = dep["spec"]["template"]
    pod_checks(dep["metadata"]["name"], tpl["spec"], True)
    ann = tpl.get("metadata", {}).get("annotations", {})
    need(ann.get("prometheus.io/scrape") == "true" and ann.get("prometheus.io/path") == "/metrics"
         and ann.get("prometheus.io/port") == "9090",
         f"kubernetes: {dep['metadata']['name']} has no Prometheus scrape annotations for the operations port 9090")
    for c in tpl["spec"]["containers"]:
        args[dep["metadata"]["name"]] = c.get("args")
need(sorted(args.values()) == [["serve"], ["worker"]], f"kubernetes: deployments run {args}")
for job in kinds.get("Job", []):
    pod_checks(job["metadata"]["name"], job["spec"]["template"]["spec"], False)
    need(job["spec"]["template"]["spec"]["containers"][0].get("args") == ["migrate"], "kubernetes: the Job does not migrate")
api_labels = None
for dep in kinds.get("Deployment", []):
    if dep["spec"]["template"]["spec"]["containers"][0].get("args") == ["serve"]:
        api_labels = dep["spec"]["template"]["metadata"]["labels"]
def selects(selector):
    return api_labels is not None and all(api_labels.get(k) == v for k, v in (selector or {}).items())
need(any(selects(s["spec"].get("selector")) for s in kinds.get("Service", [])), "kubernetes: no Service selects the API pods")
need(any(selects(p["spec"].get("selector", {}).get("matchLabels")) for p in kinds.get("PodDisruptionBudget", [])),
     "kubernetes: no PodDisruptionBudget covers the API pods")
for svc in kinds.get("Service", []):
    for port in svc["spec"].get("ports", []):
        need(port.get("targetPort") != "ops" and port.get("targetPort") != 9090, "kubernetes: a Service exposes the operations port")
secret_keys = ("DATABASE_URL", "SMTP_URL", "CLAVEUNICA_CLIENT_SECRET", "SOBRE_SEAL_P12_PASSWORD", "SOBRE_AUDIT_KEY", "SOBRE_PAYLOAD_KEYS")
for cm in kinds.get("ConfigMap", []):
    for key in cm.get("data", {}):
        need(not key.startswith(secret_keys), f"kubernetes: {key} belongs in a Secret, not the ConfigMap")
    metrics = cm.get("data", {}).get("SOBRE_METRICS_ADDR", "")
    need(metrics.endswith(":9090"), f"kubernetes: SOBRE_METRICS_ADDR {metrics!r} is not the operations port 9090")
for sec in kinds.get("Secret", []):
    for key, value in (sec.get("stringData") or {}).items():
        need("REPLACE_ME" in str(value), f"kubernetes: the example Secret {sec['metadata']['name']}'s {key} is not a marked placeholder")
    url = (sec.get("stringData") or {}).get("DATABASE_URL")
    if url is not None:
        need(re.search(r"[?&]sslmode=verify-full(&|$)", url), "kubernetes: DATABASE_URL does not verify the server (sslmode=verify-full)")

# Secrets: files only, each mounted only in the pods that read it. A pod mounts a Secret only
# when one of its containers names a file under it (a *_FILE variable, or SOBRE_SEAL_P12 or
# sslrootcert through the ConfigMap and the database URL), and the Secrets land exactly here:
want_secrets = {
    "sobre-migrate": {"sobre-database"},
    "sobre-api": {"sobre-database", "sobre-smtp", "sobre-claveunica", "sobre-keys"},
    "sobre-worker": {"sobre-database", "sobre-smtp", "sobre-keys", "sobre-seal"},
}
configmap_data = {}
for cm in kinds.get("ConfigMap", []):
    configmap_data.update(cm.get("data", {}))
pods = [(d["metadata"]["name"], d["spec"]["template"]["spec"]) for d in kinds.get("Deployment", []) + kinds.get("Job", [])]
for name, spec in pods:
    volumes = {v["name"]: v["secret"]["secretName"] for v in spec.get("volumes", []) if "secret" in v}
    need(set(volumes.values()) == want_secrets.get(name, set()),
         f"kubernetes: {name} mounts the Secrets {sorted(volumes.values())}, want {sorted(want_secrets.get(name, set()))}")
    for v in spec.get("volumes", []):
        if "secret" in v:
            need(v["secret"].get("defaultMode") in (0o400, 0o440), f"kubernetes: {name} mounts {v['name']} readable by others")
    used = set()
    for c in spec.get("initContainers", []) + spec.get("containers", []):
        for src in c.get("envFrom", []):
            need("secretRef" not in src, f"kubernetes: {name}/{c['name']} takes a Secret as environment variables")
        for e in c.get("env", []):
            need("secretKeyRef" not in (e.get("valueFrom") or {}), f"kubernetes: {name}/{c['name']} takes {e['name']} from a Secret as a variable")
        mounts = {m["mountPath"]: m["name"] for m in c.get("volumeMounts", []) if m["name"] in volumes}
        for m in c.get("volumeMounts", []):
            if m["name"] in volumes:
                need(m.get("readOnly") is True, f"kubernetes: {name}/{c['name']} mounts {m['name']} writable")
        paths = [e.get("value", "") for e in c.get("env", []) if e["name"].endswith("_FILE")]
        paths += [configmap_data.get("SOBRE_SEAL_P12", "")] if "SOBRE_SEAL_P12_PASSWORD_FILE" in [e["name"] for e in c.get("env", [])] else []
        for e in c.get("env", []):
            if e["name"].endswith("_FILE"):
                need(any(e.get("value", "").startswith(mp + "/") for mp in mounts), f"kubernetes: {name}/{c['name']} reads {e['name']} outside its mounted Secrets")
        for mp, vol in mounts.items():
            if any(p.startswith(mp + "/") for p in paths):
                used.add(vol)
            else:
                problems.append(f"kubernetes: {name}/{c['name']} mounts {vol} but reads no file of it")
    need(used == set(volumes), f"kubernetes: {name} mounts Secrets no container reads: {sorted(set(volumes) - used)}")

# NetworkPolicy: everything denied by default; the API reachable on its port from the ingress
# controller only; the worker from nothing but the metrics scrape; egress only on named ports.
policies = kinds.get("NetworkPolicy", [])
need(any(p["spec"].get("podSelector") == {} and set(p["spec"].get("policyTypes", [])) == {"Ingress", "Egress"}
         and not p["spec"].get("ingress") and not p["spec"].get("egress") for p in policies),
     "kubernetes: no default-deny NetworkPolicy for ingress and egress")
def policy_selects(policy, component):
    sel = policy["spec"].get("podSelector", {})
    labels = {"app.kubernetes.io/name": "sobre", "app.kubernetes.io/component": component}
    if any(labels.get(k) != v for k, v in (sel.get("matchLabels") or {}).items()):
        return False
    for ex in sel.get("matchExpressions") or []:
        if ex.get("operator") != "In" or labels.get(ex["key"]) not in ex.get("values", []):
            return False
    return True
private = {"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16"}
def allowed(component, direction):
    rules = []
    for p in policies:
        if policy_selects(p, component) and direction.capitalize() in p["spec"].get("policyTypes", []):
            rules += p["spec"].get(direction) or []
    return rules
def ports_of(rules):
    return {port.get("port") for r in rules for port in r.get("ports", [])}
for component in ("api", "worker", "migrate"):
    for direction in ("ingress", "egress"):
        for r in allowed(component, direction):
            need(r.get("ports"), f"kubernetes: a NetworkPolicy allows {component} {direction} on every port")
            peers = r.get("from" if direction == "ingress" else "to") or []
            need(peers, f"kubernetes: a NetworkPolicy allows {component} {direction} from or to anywhere")
            for peer in peers:
                block = peer.get("ipBlock")
                if block and block.get("cidr") == "0.0.0.0/0":
                    need(private <= set(block.get("except", [])), f"kubernetes: {component} {direction} to 0.0.0.0/0 reaches private or metadata addresses")
    ingress = allowed(component, "ingress")
    need(all(not r.get("from") or all("ipBlock" not in peer for peer in r["from"]) for r in ingress),
         f"kubernetes: {component} ingress allowed from address blocks")
need(ports_of(allowed("api", "ingress")) == {8080, 9090}, f"kubernetes: the API's ingress ports {ports_of(allowed('api', 'ingress'))}, want 8080 and 9090")
need(any(8080 in ports_of([r]) and all("namespaceSelector" in peer for peer in r.get("from", [])) for r in allowed("api", "ingress")),
     "kubernetes: the API's port 8080 is not limited to the ingress controller's namespace")
need(ports_of(allowed("worker", "ingress")) <= {9090}, f"kubernetes: the worker accepts ingress on {ports_of(allowed('worker', 'ingress'))}")
need(not allowed("migrate", "ingress"), "kubernetes: the migration Job accepts ingress")
want_egress = {"migrate": {53, 5432}, "api": {53, 5432, 7233, 587, 465, 443, 80}, "worker": {53, 5432, 7233, 587, 465, 443, 80}}
for component, want in want_egress.items():
    got = ports_of(allowed(component, "egress"))
    need(got == want, f"kubernetes: {component} egress ports {sorted(got)}, want {sorted(want)}")

# Images: pinned by tag and digest in the kustomization; no container runs "latest".
kust = yaml.safe_load(open("deploy/kubernetes/kustomization.yaml"))
for img in kust.get("images", []):
    need(img.get("newTag") and img.get("newTag") != "latest", f"kubernetes: image {img.get('name')} has no pinned tag")
    need(re.fullmatch(r"sha256:[0-9a-f]{64}", str(img.get("digest", ""))), f"kubernetes: image {img.get('name')} has no digest")
for name, spec in pods:
    for c in spec.get("initContainers", []) + spec.get("containers", []):
        image = c.get("image", "")
        need(not image.endswith(":latest"), f"kubernetes: {name}/{c['name']} runs {image}")
        if rendered:
            need("@sha256:" in image, f"kubernetes: {name}/{c['name']} image {image} is not pinned by digest")

# Dashboard: datasource variable, and only metrics that Sobre's processes export. The Temporal
# SDK's counters reach Prometheus as gauges without a _total suffix; its latency histograms end
# in _seconds.
dash = json.load(open("deploy/grafana/sobre-dashboard.json"))
known = {
    "sobre_http_request_duration_seconds", "sobre_http_requests_in_flight",
    "temporal_workflow_completed", "temporal_workflow_failed", "temporal_workflow_canceled",
    "temporal_workflow_continue_as_new", "temporal_activity_execution_failed",
    "temporal_local_activity_execution_failed", "temporal_local_activity_failed", "temporal_local_activity_total",
    "temporal_workflow_task_schedule_to_start_latency_seconds", "temporal_workflow_task_execution_latency_seconds",
    "temporal_workflow_endtoend_latency_seconds", "temporal_activity_execution_latency_seconds",
    "temporal_activity_schedule_to_start_latency_seconds", "temporal_local_activity_execution_latency_seconds",
    "temporal_worker_task_slots_available", "temporal_worker_task_slots_used", "temporal_sticky_cache_size",
    "temporal_request", "temporal_request_failure", "temporal_request_latency_seconds",
    "go_goroutines", "go_threads", "go_memstats_heap_inuse_bytes", "go_memstats_heap_alloc_bytes",
    "go_memstats_sys_bytes", "go_gc_duration_seconds", "process_resident_memory_bytes", "process_cpu_seconds_total",
    "process_open_fds",
}
names = {v["name"]: v for v in dash.get("templating", {}).get("list", [])}
need(names.get("datasource", {}).get("type") == "datasource", "dashboard: no datasource variable")
ids = [p.get("id") for p in dash.get("panels", [])]
need(len(ids) == len(set(ids)), "dashboard: panel ids repeat")
exprs = 0
for p in dash.get("panels", []):
    if p.get("type") == "row":
        continue
    need(p.get("datasource", {}).get("uid") == "${datasource}", f"dashboard: panel {p.get('title')} ignores the datasource variable")
    need(p.get("targets"), f"dashboard: panel {p.get('title')} has no query")
    for t in p.get("targets", []):
        exprs += 1
        for metric in re.findall(r"\b((?:sobre|temporal|go|process)_[a-z0-9_]+)", t.get("expr", "")):
            base = re.sub(r"_(bucket|sum|count)$", "", metric)
            need(metric in known or base in known, f"dashboard: panel {p.get('title')} queries unknown metric {metric}")
for want in ("sobre_http_request_duration_seconds_bucket", "sobre_http_requests_in_flight", "temporal_workflow_completed",
             "temporal_workflow_failed", "temporal_activity_execution_failed",
             "temporal_workflow_task_schedule_to_start_latency_seconds", "go_goroutines"):
    need(any(want in t.get("expr", "") for p in dash.get("panels", []) for t in p.get("targets", [])),
         f"dashboard: no panel shows {want}")

# Dockerfile: static build of ./cmd/sobre, non-root numeric user, /sobre as entrypoint.
docker = open("deploy/Dockerfile").read()
need(re.search(r"^FROM\s+(--platform=\S+\s+)?golang:1\.26\b", docker, re.M), "Dockerfile: builder is not golang:1.26")
for frag in ("CGO_ENABLED=0", "-trimpath", '-ldflags "-s -w"', "./cmd/sobre", 'ENTRYPOINT ["/sobre"]', "EXPOSE 8080"):
    need(frag in docker, f"Dockerfile: lacks {frag}")
need(os.path.isdir("cmd/sobre"), "Dockerfile: ./cmd/sobre does not exist")
users = re.findall(r"^USER\s+(\S+)", docker, re.M)
need(users and re.match(r"^[1-9]\d*(:\d+)?$", users[-1]), f"Dockerfile: final USER {users[-1:]} is not a numeric non-root user")

if problems:
    print("\n".join(problems))
    sys.exit(1)
print(f"{len(services)} compose services, {len(docs)} Kubernetes objects, {exprs} dashboard queries")
PY
else
  skip "contents" "python3 with PyYAML not installed (Debian: python3-yaml)"
fi

summary="deploy checks: $passed ok, $failed failed"
if [ ${#skipped[@]} -gt 0 ]; then summary+=", ${#skipped[@]} skipped ($(IFS=,; echo "${skipped[*]}" | sed 's/,/, /g'))"; fi
echo "$summary"
[ "$failed" -eq 0 ]
