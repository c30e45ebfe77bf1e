#!/usr/bin/env bash
# The local stack shared by `make run` and `make test`: a project-local PostgreSQL cluster, the
# Temporal dev server (with its Web UI when STACK_UI=1) and the mailpit SMTP sink, everything on
# 127.0.0.1. Source this file, set the STACK_* variables, then call stack_up; stack_down stops
# what stack_up started and nothing else. Every step is idempotent: a service already running
# from an earlier call is reused and left running.
#
# Variables (with the defaults of `make run`):
#   STACK_DIR        state directory                 [.data]
#   STACK_PG_PORT    PostgreSQL port                 [5433]
#   STACK_PG_DB      database name                   [sobre]
#   STACK_PG_FAST    1: fsync off (tests only)       [0]
#   STACK_TEMPORAL_PORT / STACK_TEMPORAL_UI_PORT     [7233 / 8233]
#   STACK_UI         1: Temporal Web UI on           [1]
#   STACK_UI_CODEC_ENDPOINT  codec server the Web UI decrypts payloads with  [none]
#   STACK_SMTP_PORT / STACK_MAIL_HTTP_PORT           [1025 / 8025]
# DATABASE_URL, TEMPORAL_ADDRESS and SMTP_URL, when set, replace the matching local service.

set -euo pipefail

STACK_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STACK_DIR="${STACK_DIR:-$STACK_ROOT/.data}"
STACK_PG_PORT="${STACK_PG_PORT:-5433}"
STACK_PG_DB="${STACK_PG_DB:-sobre}"
STACK_PG_FAST="${STACK_PG_FAST:-0}"
STACK_TEMPORAL_PORT="${STACK_TEMPORAL_PORT:-7233}"
STACK_TEMPORAL_UI_PORT="${STACK_TEMPORAL_UI_PORT:-8233}"
STACK_UI="${STACK_UI:-1}"
STACK_UI_CODEC_ENDPOINT="${STACK_UI_CODEC_ENDPOINT:-}"
STACK_SMTP_PORT="${STACK_SMTP_PORT:-1025}"
STACK_MAIL_HTTP_PORT="${STACK_MAIL_HTTP_PORT:-8025}"
STACK_STARTED=()

say() { printf '[stack] %s\n' "$*" >&2; }

# as_root_or_sudo runs a command as root: directly when we are root, through sudo otherwise.
as_root_or_sudo() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null 2>&1; then sudo "$@"; else
    say "need root to run: $*"; return 1; fi
}

# apt_install installs the Debian packages given, if any.
apt_install() {
  [ "$#" -eq 0 ] && return 0
  say "installing Debian packages: $*"
  as_root_or_sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root_or_sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# ensure_debian_packages installs the Debian packages whose commands are missing, given as
# command:package pairs (for example chromium:chromium pdfsig:poppler-utils).
ensure_debian_packages() {
  local pair missing=()
  for pair in "$@"; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair##*:}")
  done
  apt_install "${missing[@]}"
}

# ensure_python_modules installs the Debian packages of the python3 modules that cannot be
# imported, given as module:package pairs (for example yaml:python3-yaml).
ensure_python_modules() {
  local pair missing=()
  for pair in "$@"; do
    python3 -c "import ${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair##*:}")
  done
  apt_install "${missing[@]}"
}

# --- PostgreSQL -------------------------------------------------------------------------------

pg_bindir() {
  local d
  if command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ]; then pg_config --bindir; return; fi
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then echo "$d"; return; fi
  done
  return 1
}

pg_install() {
  say "PostgreSQL server binaries not found; installing Debian's postgresql (no default cluster)"
  as_root_or_sudo mkdir -p /etc/postgresql-common
  if ! grep -qs '^create_main_cluster *= *false' /etc/postgresql-common/createcluster.conf; then
    echo 'create_main_cluster = false' | as_root_or_sudo tee -a /etc/postgresql-common/createcluster.conf >/dev/null
  fi
  as_root_or_sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root_or_sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
}

# pg_as_owner runs a PostgreSQL program as the cluster's owner: the postgres system user when we
# are root (the server refuses to run as root), ourselves otherwise.
pg_as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# pg_cluster_dir picks the cluster directory. As root, the postgres user must be able to reach
# it; when the project lives where it cannot (say under /root), the cluster goes to /var/tmp.
pg_cluster_dir() {
  local dir="$STACK_DIR/postgresql"
  if [ "$(id -u)" -eq 0 ]; then
    mkdir -p "$STACK_DIR"
    if ! runuser -u postgres -- test -x "$STACK_DIR" 2>/dev/null; then
      dir="/var/tmp/sobre-pg-$(printf '%s' "$STACK_DIR" | sha256sum | cut -c1-12)"
    fi
  fi
  echo "$dir"
}

pg_up() {
  if [ -n "${DATABASE_URL:-}" ]; then say "DATABASE_URL is set: using it, no local PostgreSQL"; return; fi
  local bin dir
  bin="$(pg_bindir)" || { pg_install; bin="$(pg_bindir)"; }
  dir="$(pg_cluster_dir)"
  if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then
    say "the postgres system user is missing"; return 1
  fi
  if [ ! -s "$dir/PG_VERSION" ]; then
    say "creating PostgreSQL cluster in $dir"
    mkdir -p "$dir"
    [ "$(id -u)" -eq 0 ] && chown postgres: "$dir"
    chmod 700 "$dir"
    pg_as_owner "$bin/initdb" -D "$dir" -U sobre --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
    {
      echo "listen_addresses = '127.0.0.1'"
      echo "unix_socket_directories = ''"
      echo "max_connections = 200"
      if [ "$STACK_PG_FAST" = 1 ]; then
        echo "fsync = off"; echo "synchronous_commit = off"; echo "full_page_writes = off"
      fi
    } | pg_as_owner tee -a "$dir/postgresql.conf" >/dev/null
  fi
  if pg_as_owner "$bin/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
    say "PostgreSQL already running ($dir)"
  else
    pg_as_owner "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -o "-p $STACK_PG_PORT" -w -t 60 start >/dev/null \
      || { say "PostgreSQL did not start; its log:"; tail -n 20 "$dir/server.log" >&2; return 1; }
    STACK_STARTED+=("pg:$bin:$dir")
    say "PostgreSQL started on 127.0.0.1:$STACK_PG_PORT"
  fi
  local psql=("$bin/psql" -X -q -h 127.0.0.1 -p "$STACK_PG_PORT" -U sobre -d postgres)
  if [ "$("${psql[@]}" -tAc "SELECT 1 FROM pg_database WHERE datname = '$STACK_PG_DB'")" != 1 ]; then
    "${psql[@]}" -c "CREATE DATABASE \"$STACK_PG_DB\""
  fi
  export DATABASE_URL="postgres://sobre@127.0.0.1:$STACK_PG_PORT/$STACK_PG_DB?sslmode=disable"
  export STACK_PG_BIN="$bin"
}

pg_down() {
  local bin="$1" dir="$2"
  pg_as_owner "$bin/pg_ctl" -D "$dir" -m fast -w stop >/dev/null 2>&1 && say "PostgreSQL stopped" || true
}

# --- Temporal ---------------------------------------------------------------------------------

temporal_up() {
  if [ -n "${TEMPORAL_ADDRESS:-}" ]; then say "TEMPORAL_ADDRESS is set: using it, no local Temporal"; return; fi
  "$STACK_ROOT/scripts/build-temporal.sh"
  local addr="127.0.0.1:$STACK_TEMPORAL_PORT" cli="$STACK_ROOT/bin/temporal"
  mkdir -p "$STACK_DIR"
  if "$cli" operator cluster health --address "$addr" >/dev/null 2>&1; then
    say "Temporal already running on $addr"
  else
    local ui=(--headless)
    [ "$STACK_UI" = 1 ] && ui=(--ui-ip 127.0.0.1 --ui-port "$STACK_TEMPORAL_UI_PORT")
    # The Web UI asks this codec server (`sobre codec-server`) to decrypt the payloads it shows.
    [ "$STACK_UI" = 1 ] && [ -n "$STACK_UI_CODEC_ENDPOINT" ] && ui+=(--ui-codec-endpoint "$STACK_UI_CODEC_ENDPOINT")
    "$cli" server start-dev --ip 127.0.0.1 --port "$STACK_TEMPORAL_PORT" "${ui[@]}" \
      --db-filename "$STACK_DIR/temporal.db" \
      --sqlite-pragma journal_mode=wal --sqlite-pragma synchronous=normal \
      --search-attribute EnvelopeId=Keyword --search-attribute EnvelopeStatus=Keyword \
      --search-attribute TeamId=Keyword --search-attribute WebhookId=KeywordList \
      --log-level warn >"$STACK_DIR/temporal.log" 2>&1 &
    local pid=$!
    echo "$pid" >"$STACK_DIR/temporal.pid"
    STACK_STARTED+=("temporal:$pid")
    local i
    for i in $(seq 1 300); do
      if "$cli" operator cluster health --address "$addr" 2>/dev/null | grep -q SERVING; then break; fi
      if ! kill -0 "$pid" 2>/dev/null; then say "Temporal exited; its log:"; tail -n 20 "$STACK_DIR/temporal.log" >&2; return 1; fi
      sleep 0.2
    done
    # The namespace answers a little after the frontend reports SERVING.
    for i in $(seq 1 150); do
      "$cli" workflow list --address "$addr" --limit 1 >/dev/null 2>&1 && break
      sleep 0.2
    done
    say "Temporal dev server started on $addr"
  fi
  # A database file kept from a release before a search attribute existed lacks it (the flags
  # above only apply to a new file): add what is missing; one already there is left as it is.
  local listed attr
  listed="$("$cli" operator search-attribute list --address "$addr" 2>/dev/null || true)"
  for attr in EnvelopeId=Keyword EnvelopeStatus=Keyword TeamId=Keyword WebhookId=KeywordList; do
    if ! grep -qw "${attr%%=*}" <<<"$listed"; then
      "$cli" operator search-attribute create --address "$addr" --name "${attr%%=*}" --type "${attr#*=}" >/dev/null &&
        say "Temporal: search attribute ${attr%%=*} added"
    fi
  done
  export TEMPORAL_ADDRESS="$addr"
}

# stop_pid stops a process and waits until it is gone, so that a restart never finds the
# SQLite file still locked.
stop_pid() {
  local pid="$1" name="$2" i
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || { say "$name stopped"; return 0; }; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  say "$name killed after 10 s"
}

# --- mailpit ----------------------------------------------------------------------------------

mailpit_up() {
  if [ -n "${SMTP_URL:-}" ]; then say "SMTP_URL is set: using it, no local mail sink"; return; fi
  "$STACK_ROOT/scripts/build-mailpit.sh"
  local http="127.0.0.1:$STACK_MAIL_HTTP_PORT"
  mkdir -p "$STACK_DIR"
  if curl -fsS "http://$http/api/v1/info" >/dev/null 2>&1; then
    say "mailpit already running on $http"
  else
    "$STACK_ROOT/bin/mailpit" --listen "$http" --smtp "127.0.0.1:$STACK_SMTP_PORT" \
      --database "$STACK_DIR/mailpit.db" --disable-version-check --max 5000 --quiet \
      >"$STACK_DIR/mailpit.log" 2>&1 &
    local pid=$! i
    STACK_STARTED+=("mailpit:$pid")
    for i in $(seq 1 100); do
      curl -fsS "http://$http/api/v1/info" >/dev/null 2>&1 && break
      kill -0 "$pid" 2>/dev/null || { say "mailpit exited; its log:"; tail -n 20 "$STACK_DIR/mailpit.log" >&2; return 1; }
      sleep 0.1
    done
    say "mailpit started: SMTP 127.0.0.1:$STACK_SMTP_PORT, web $http"
  fi
  export SMTP_URL="smtp://127.0.0.1:$STACK_SMTP_PORT"
  export MAILPIT_URL="http://$http"
}

# --- all --------------------------------------------------------------------------------------

stack_up() {
  # The two tool builds (minutes the first time, nothing afterwards) run side by side.
  local pids=()
  [ -z "${TEMPORAL_ADDRESS:-}" ] && { "$STACK_ROOT/scripts/build-temporal.sh" & pids+=($!); }
  [ -z "${SMTP_URL:-}" ] && { "$STACK_ROOT/scripts/build-mailpit.sh" & pids+=($!); }
  local pid
  for pid in "${pids[@]}"; do wait "$pid" || { say "building the local tools failed"; return 1; }; done
  pg_up
  temporal_up
  mailpit_up
}

# stack_down stops, newest first, what stack_up started in this shell.
stack_down() {
  local i entry
  for ((i = ${#STACK_STARTED[@]} - 1; i >= 0; i--)); do
    entry="${STACK_STARTED[$i]}"
    case "$entry" in
      pg:*) IFS=: read -r _ bin dir <<<"$entry"; pg_down "$bin" "$dir" ;;
      temporal:*) stop_pid "${entry#temporal:}" "Temporal" ;;
      mailpit:*) stop_pid "${entry#mailpit:}" "mailpit" ;;
    esac
  done
  STACK_STARTED=()
}
