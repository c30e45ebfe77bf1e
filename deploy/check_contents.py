"""What Sobre needs of its deployment files, checked offline: run by deploy/check.sh (with the
path of the kustomize rendering, or "" without kustomize) from the repository root; prints each
problem and exits 1 when there is one. deploy/check-breaks.sh breaks each rule once and
requires this to fail."""
import json, os, re, sys
from urllib.parse import urlparse

import yaml

rendered = sys.argv[1] if len(sys.argv) > 1 else ""
problems = []
def need(cond, msg):
    if not cond:
        problems.append(msg)

# Compose: the services, their order, loopback-only ports, pinned images, files that exist.
compose = yaml.safe_load(open("docker-compose.yml"))
services = compose.get("services", {})
for name in ("postgresql", "temporal-schema", "temporal", "temporal-search-attributes", "temporal-ui", "mailpit",
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
# Temporal: temporalio/server (never the deprecated auto-setup image), its schemas set up first by
# temporalio/admin-tools of the same release on Sobre's own PostgreSQL, under Temporal's role.
for name, svc in services.items():
    need("auto-setup" not in svc.get("image", ""), f"compose: {name} runs the deprecated image {svc.get('image')}")
temporal = services.get("temporal") or {}
tenv = temporal.get("environment") or {}
release_match = re.fullmatch(r"temporalio/server:(\d+\.\d+\.\d+)", temporal.get("image", ""))
need(release_match, f"compose: Temporal image {temporal.get('image')} is not temporalio/server:X.Y.Z")
release = release_match.group(1) if release_match else None
for name, svc in services.items():
    image = svc.get("image", "")
    if image.startswith("temporalio/admin-tools:"):
        need(image.split(":", 1)[1].split("-")[0] == release, f"compose: {name} runs {image}, not Temporal's release {release}")
need(tenv.get("DB") == "postgres12", "compose: Temporal not on PostgreSQL (DB=postgres12)")
sobre_db = urlparse(((compose.get("x-sobre") or {}).get("environment") or {}).get("DATABASE_URL", ""))
need(tenv.get("POSTGRES_SEEDS") == sobre_db.hostname and tenv.get("POSTGRES_SEEDS") in services,
     f"compose: Temporal's PostgreSQL {tenv.get('POSTGRES_SEEDS')} is not Sobre's ({sobre_db.hostname})")
need(tenv.get("POSTGRES_USER") not in (None, sobre_db.username), "compose: Temporal does not use a role of its own")
need(re.search(r"CREATE ROLE " + re.escape(str(tenv.get("POSTGRES_USER"))) + r"\b.*\bCREATEDB\b", open("deploy/compose/postgres-init.sql").read()),
     "compose: postgres-init.sql does not create Temporal's role, able to create its databases")
need(re.fullmatch(r"[1-9]\d*", str(tenv.get("NUM_HISTORY_SHARDS", ""))), "compose: NUM_HISTORY_SHARDS is not set (it can never change afterwards)")
need(((temporal.get("depends_on") or {}).get("temporal-schema") or {}).get("condition") == "service_completed_successfully",
     "compose: Temporal does not wait for temporal-schema to complete")
schema = services.get("temporal-schema") or {}
senv = schema.get("environment") or {}
need(schema.get("image", "").startswith("temporalio/admin-tools:"), "compose: temporal-schema does not run temporalio/admin-tools")
for key in ("POSTGRES_SEEDS", "DB_PORT", "POSTGRES_USER", "DBNAME", "VISIBILITY_DBNAME"):
    need(senv.get(key) is not None and senv.get(key) == tenv.get(key), f"compose: temporal-schema's {key} {senv.get(key)!r} is not Temporal's {tenv.get(key)!r}")
need(senv.get("SQL_PASSWORD") == tenv.get("POSTGRES_PWD"), "compose: temporal-schema's SQL_PASSWORD is not Temporal's POSTGRES_PWD")
mounted = {str(v).split(":")[1]: str(v).split(":")[0] for v in schema.get("volumes", [])}
entry = schema.get("entrypoint") or []
need(len(entry) == 2 and entry[1] in mounted, f"compose: temporal-schema runs {entry}, not a mounted script")
schema_script = open(mounted.get(entry[-1] if entry else "", "deploy/compose/temporal-schema.sh")).read()
for step in (r"\bcreate\b", r"\bsetup-schema -v 0\.0\b", r"\bupdate-schema -d\b"):
    need(re.search(r"^\s*sql --db \"\$db\" " + step, schema_script, re.M), f"compose: temporal-schema.sh lacks the step {step}")
for pair in ('"$DBNAME:temporal"', '"$VISIBILITY_DBNAME:visibility"'):
    need(pair in schema_script, f"compose: temporal-schema.sh does not set up {pair}")
dynamic = tenv.get("DYNAMIC_CONFIG_FILE_PATH")
mounted = {str(v).split(":")[1]: str(v).split(":")[0] for v in temporal.get("volumes", [])}
need(dynamic in mounted, f"compose: Temporal's DYNAMIC_CONFIG_FILE_PATH {dynamic} is not a mounted file")
if dynamic in mounted and os.path.exists(mounted[dynamic]):
    need(isinstance(yaml.safe_load(open(mounted[dynamic])), dict), f"compose: {mounted[dynamic]} is not a map of settings")
script = open("deploy/compose/register-search-attributes.sh").read()
for attr in ("EnvelopeId", "EnvelopeStatus", "TeamId", "WebhookId"):
    need(attr in script, f"compose: search attribute {attr} is not registered")
need("temporal operator namespace create" in script, "compose: nothing creates the namespace (temporalio/server makes none)")

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

# Temporal on Kubernetes: Temporal's Helm chart with kubernetes/temporal/values.yaml, on the same
# release as the compose file, its two stores on an external PostgreSQL reached over verified TLS
# with the password from a Secret, its schemas managed by the chart, the namespace Sobre uses
# created, the Web UI on; and deploy/README.md installs it where Sobre's ConfigMap looks for it.
values = yaml.safe_load(open("deploy/kubernetes/temporal/values.yaml")) or {}
server = values.get("server") or {}
persistence = (server.get("config") or {}).get("persistence") or {}
shards = persistence.get("numHistoryShards")
need(isinstance(shards, int) and shards > 0, f"helm: numHistoryShards {shards!r} is not set")
need(persistence.get("defaultStore") == "default" and persistence.get("visibilityStore") == "visibility",
     "helm: the stores are not named default and visibility")
mounts = {m.get("mountPath") for m in server.get("additionalVolumeMounts") or []}
tool_mounts = {m.get("mountPath") for m in (values.get("admintools") or {}).get("additionalVolumeMounts") or []}
hosts = set()
for store, database in (("default", "temporal"), ("visibility", "temporal_visibility")):
    sql = ((persistence.get("datastores") or {}).get(store) or {}).get("sql") or {}
    need(str(sql.get("pluginName", "")).startswith("postgres12"), f"helm: the {store} store is not on PostgreSQL")
    need(sql.get("databaseName") == database, f"helm: the {store} store's database is {sql.get('databaseName')!r}, want {database}")
    need(sql.get("manageSchema") is True, f"helm: the chart does not set up the {store} store's schema (manageSchema)")
    need(sql.get("existingSecret") and "password" not in sql, f"helm: the {store} store's password is not only in a Secret (existingSecret)")
    tls = sql.get("tls") or {}
    need(tls.get("enabled") is True and tls.get("enableHostVerification") is True,
         f"helm: the {store} store does not verify PostgreSQL's certificate")
    ca_dir = os.path.dirname(str(tls.get("caFile", "")))
    need(ca_dir in mounts and ca_dir in tool_mounts, f"helm: the {store} store's caFile is not mounted in the server and admin-tools pods")
    need(isinstance(sql.get("maxConns"), int), f"helm: the {store} store's maxConns is not set (deploy/README.md counts on it)")
    hosts.add(str(sql.get("connectAddr", "")).rsplit(":", 1)[0])
need(len(hosts) == 1, f"helm: the two stores are on different PostgreSQL servers {sorted(hosts)}")
need(((server.get("image") or {}).get("tag")) == release, f"helm: server image {(server.get('image') or {}).get('tag')} is not compose's Temporal {release}")
tools_tag = str(((values.get("admintools") or {}).get("image") or {}).get("tag", ""))
need(tools_tag.split("-")[0] == release, f"helm: admin-tools image {tools_tag} is not Temporal's release {release}")
if release and tuple(int(x) for x in release.split(".")[:2]) < (1, 30):
    need((values.get("shims") or {}).get("dockerize") is True, "helm: Temporal before 1.30 needs shims.dockerize")
web = values.get("web") or {}
ui = (services.get("temporal-ui") or {}).get("image", "")
need(web.get("enabled") is True and f"temporalio/ui:{(web.get('image') or {}).get('tag')}" == ui,
     f"helm: the Web UI is off or not compose's {ui}")
namespaces = (server.get("config") or {}).get("namespaces") or {}
need(namespaces.get("create") is True and configmap_data.get("TEMPORAL_NAMESPACE") in [n.get("name") for n in namespaces.get("namespace") or []],
     f"helm: the chart does not create Sobre's namespace {configmap_data.get('TEMPORAL_NAMESPACE')!r}")
need(((server.get("dynamicConfig") or {}).get("frontend.enableUpdateWorkflowExecution") or [{}])[0].get("value") is True,
     "helm: workflow Updates are not enabled in the dynamic config")
deploy_readme = open("deploy/README.md").read()
install = re.search(r"^helm upgrade --install (\S+) temporal .*--version (\S+) .*--namespace (\S+)", deploy_readme, re.M)
need(install, "helm: deploy/README.md has no `helm upgrade --install RELEASE temporal ... --version V ... --namespace NS`")
if install:
    frontend = f"{install.group(1)}-frontend.{install.group(3)}.svc.cluster.local:7233"
    need(configmap_data.get("TEMPORAL_ADDRESS") == frontend,
         f"helm: Sobre's TEMPORAL_ADDRESS {configmap_data.get('TEMPORAL_ADDRESS')} is not the chart's frontend {frontend}")
    need(f"--version {install.group(2)}" in open("deploy/kubernetes/temporal/values.yaml").read(),
         "helm: values.yaml and deploy/README.md name different chart versions")
section = re.search(r"^### History shards\n(.*?)(?=^#)", deploy_readme, re.M | re.S)
need(section and f"- Kubernetes: **{shards}**" in section.group(1) and f"- Compose: **{tenv.get('NUM_HISTORY_SHARDS')}**" in section.group(1),
     "helm: deploy/README.md's \"History shards\" does not explain the numbers of shards chosen")

# Dashboard: the datasource variable, and only metrics that exist. Sobre's own are the sobre_*
# names its Go code registers (a literal Name, or sobre_<check>_up for each dependency check the
# API reports); the others are listed in grafana/exported-metrics.txt, which tests hold to the
# real exporters (TestSDKMetricNames, TestRegistryExportsRuntimeMetrics).
def sobre_metrics():
    names, checks, health_gauge = set(), set(), False
    for root, dirs, files in os.walk("."):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in ("node_modules", "e2e", "testdata")]
        for f in files:
            if not f.endswith(".go") or f.endswith("_test.go"):
                continue
            src = open(os.path.join(root, f), encoding="utf-8").read()
            names |= set(re.findall(r'\bName:\s*"(sobre_[a-z0-9_]+)"', src))
            health_gauge |= '"sobre_" + c.Name + "_up"' in src
            checks |= set(re.findall(r'\bCheck\{Name:\s*"([a-z0-9_]+)"', src))
            for const in re.findall(r'\bCheck\{Name:\s*([A-Za-z_]\w*)\s*,', src):
                m = re.search(r'\b' + const + r'\s*=\s*"([a-z0-9_]+)"', src)
                if m:
                    checks.add(m.group(1))
    if health_gauge:
        names |= {f"sobre_{c}_up" for c in checks}
    return names
own = sobre_metrics()
need({"sobre_http_request_duration_seconds", "sobre_postgresql_up", "sobre_temporal_up"} <= own,
     f"dashboard: the search of Sobre's metrics in the Go code found only {sorted(own)}")
listed = {l.strip() for l in open("deploy/grafana/exported-metrics.txt") if l.strip() and not l.startswith("#")}
known = own | listed
# PromQL words that are not metric names.
promql = {"sum", "min", "max", "avg", "count", "topk", "bottomk", "quantile", "stddev", "rate", "irate", "increase",
          "delta", "deriv", "histogram_quantile", "label_values", "abs", "clamp_min", "clamp_max", "by", "without",
          "on", "ignoring", "group_left", "group_right", "and", "or", "unless", "bool", "offset", "vector", "scalar",
          "max_over_time", "min_over_time", "avg_over_time", "sum_over_time", "time"}
def metrics_of(expr):
    s = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)  # label values and strings
    s = re.sub(r"\{[^}]*\}", "", s)                   # label matchers
    s = re.sub(r"\[[^\]]*\]", "", s)                  # ranges ($__rate_interval)
    s = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", s)
    s = re.sub(r"\$\w+", "", s)
    s = re.sub(r"label_values\(([^,()]*),\s*\w+\s*\)", r"label_values(\1)", s)  # its second argument is a label
    return [t for t in re.findall(r"(?<![\w.])[A-Za-z_:][A-Za-z0-9_:]*", s) if t not in promql]
def is_known(metric):
    if metric in known:
        return True
    base, suffix = re.match(r"(.*?)(_bucket|_sum|_count)?$", metric).groups()
    return bool(suffix) and base in known
dash = json.load(open("deploy/grafana/sobre-dashboard.json"))
names = {v["name"]: v for v in dash.get("templating", {}).get("list", [])}
need(names.get("datasource", {}).get("type") == "datasource", "dashboard: no datasource variable")
for v in dash.get("templating", {}).get("list", []):
    for metric in metrics_of(v.get("definition", "")):
        need(is_known(metric), f"dashboard: variable {v['name']} queries unknown metric {metric}")
ids = [p.get("id") for p in dash.get("panels", [])]
need(len(ids) == len(set(ids)), "dashboard: panel ids repeat")
exprs, queried = 0, set()
for p in dash.get("panels", []):
    if p.get("type") == "row":
        continue
    need(p.get("datasource", {}).get("uid") == "${datasource}", f"dashboard: panel {p.get('title')} ignores the datasource variable")
    need(p.get("targets"), f"dashboard: panel {p.get('title')} has no query")
    for t in p.get("targets", []):
        exprs += 1
        found = metrics_of(t.get("expr", ""))
        need(found, f"dashboard: panel {p.get('title')} has a query of no metric: {t.get('expr')!r}")
        for metric in found:
            queried.add(metric)
            need(is_known(metric), f"dashboard: panel {p.get('title')} queries unknown metric {metric}")
for want in ("sobre_http_request_duration_seconds_bucket", "sobre_http_requests_in_flight", "sobre_envelopes_stuck",
             "temporal_workflow_completed", "temporal_workflow_failed", "temporal_activity_execution_failed",
             "temporal_workflow_task_schedule_to_start_latency_seconds_bucket",
             "temporal_activity_schedule_to_start_latency_seconds_bucket", "temporal_sticky_cache_size",
             "temporal_worker_task_slots_available", "go_goroutines", "process_resident_memory_bytes"):
    need(want in queried, f"dashboard: no panel shows {want}")

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
