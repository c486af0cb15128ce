#!/usr/bin/env bash
# Start a local PostgreSQL cluster on loopback and create the test role/database. Idempotent and
# non-interactive. Prints ONE line on stdout, the export of the test URL, so CI can do:
#     eval "$(bash scripts/start_postgres.sh)"
# and also writes that line to $GRACE_PG_ENV_FILE (default: /tmp/grace_postgres.env) for `source`.
# Everything else goes to stderr.
set -euo pipefail

PG_USER="${GRACE_PG_USER:-grace}"
PG_PASSWORD="${GRACE_PG_PASSWORD:-grace_test}"   # loopback-only throwaway test credential
PG_DB="${GRACE_PG_DB:-grace_test}"
PG_PORT="${GRACE_PG_PORT:-5432}"
ENV_FILE="${GRACE_PG_ENV_FILE:-/tmp/grace_postgres.env}"

log() { echo "start_postgres: $*" >&2; }

if ! command -v pg_ctlcluster >/dev/null 2>&1; then
  log "PostgreSQL is not installed; run scripts/install_system_deps.sh first"
  exit 1
fi

as_postgres() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else sudo -u postgres -- "$@"; fi
}

# Newest installed major version.
PG_VERSION="$(ls /usr/lib/postgresql | sort -n | tail -1)"
CLUSTER="main"

if ! pg_lsclusters -h | awk '{print $1" "$2}' | grep -qx "$PG_VERSION $CLUSTER"; then
  log "creating cluster $PG_VERSION/$CLUSTER on port $PG_PORT"
  pg_createcluster "$PG_VERSION" "$CLUSTER" --port="$PG_PORT" -- --auth-local=peer --auth-host=scram-sha-256 >&2
fi

status="$(pg_lsclusters -h | awk -v v="$PG_VERSION" -v c="$CLUSTER" '$1==v && $2==c {print $4}')"
port="$(pg_lsclusters -h | awk -v v="$PG_VERSION" -v c="$CLUSTER" '$1==v && $2==c {print $3}')"
if [ "$status" != "online" ]; then
  log "starting cluster $PG_VERSION/$CLUSTER (port $port, loopback only)"
  # listen only on loopback whatever the cluster's config says
  pg_ctlcluster "$PG_VERSION" "$CLUSTER" start -o "-c listen_addresses=127.0.0.1" >&2
fi

# Wait until it accepts connections (bounded).
for _ in $(seq 1 60); do
  if as_postgres psql -p "$port" -qtAc "SELECT 1" >/dev/null 2>&1; then break; fi
  sleep 0.5
done
as_postgres psql -p "$port" -qtAc "SELECT 1" >/dev/null

# Role and database, created only when missing.
if [ "$(as_postgres psql -p "$port" -qtAc "SELECT 1 FROM pg_roles WHERE rolname='${PG_USER}'")" != "1" ]; then
  log "creating role $PG_USER"
  as_postgres psql -p "$port" -qc "CREATE ROLE \"${PG_USER}\" LOGIN PASSWORD '${PG_PASSWORD}' CREATEDB" >&2
fi
if [ "$(as_postgres psql -p "$port" -qtAc "SELECT 1 FROM pg_database WHERE datname='${PG_DB}'")" != "1" ]; then
  log "creating database $PG_DB"
  as_postgres psql -p "$port" -qc "CREATE DATABASE \"${PG_DB}\" OWNER \"${PG_USER}\"" >&2
fi

# Settings a deployment wants too (idempotent: ALTER SYSTEM then a reload; none needs a restart). They make a
# latency tail explainable from PostgreSQL's own log and smooth the I/O of checkpoints; none weakens durability
# (fsync, synchronous_commit and full_page_writes stay on: every audit record is flushed before its turn answers).
#  - log_lock_waits: a turn waiting longer than deadlock_timeout (1 s) on another turn's row lock is logged.
#  - log_min_duration_statement: statements slower than this are logged with their duration (a slow COMMIT is
#    a slow WAL flush); set low enough to see a tail, high enough not to log every turn.
#  - log_checkpoints / log_autovacuum_min_duration: checkpoints and autovacuum runs are logged with their timing,
#    to line them up with slow turns.
#  - track_wal_io_timing / track_io_timing: pg_stat_wal and pg_stat_database report time spent in WAL
#    writes/fsyncs and data reads (cheap with a TSC clock: `pg_test_timing`).
#  - wal_compression: full-page images written after each checkpoint are compressed, so the WAL burst that
#    follows a checkpoint (and its fsyncs) is smaller.
#  - checkpoint_completion_target / max_wal_size: spread checkpoint writes over the whole interval and do not
#    force checkpoints by WAL volume at a few hundred turns/s.
PG_SETTINGS=(
  "log_lock_waits=on"
  "log_min_duration_statement=${GRACE_PG_LOG_MIN_DURATION_MS:-50}"
  "log_checkpoints=on"
  "log_autovacuum_min_duration=250"
  "track_wal_io_timing=on"
  "track_io_timing=on"
  "wal_compression=$(as_postgres psql -p "$port" -qtAc \
    "SELECT CASE WHEN 'lz4' = ANY(enumvals) THEN 'lz4' ELSE 'pglz' END FROM pg_settings WHERE name='wal_compression'")"
  "checkpoint_completion_target=0.9"
  "max_wal_size=2GB"
)
for setting in "${PG_SETTINGS[@]}"; do
  as_postgres psql -p "$port" -qc "ALTER SYSTEM SET ${setting%%=*} = '${setting#*=}'" >&2
done
as_postgres psql -p "$port" -qtAc "SELECT pg_reload_conf()" >/dev/null
log "settings: ${PG_SETTINGS[*]}"

URL="postgresql://${PG_USER}:${PG_PASSWORD}@127.0.0.1:${port}/${PG_DB}"
line="export GRACE_TEST_POSTGRES_URL='${URL}'"
printf '%s\n' "$line" > "$ENV_FILE"
log "ready: $URL (also written to $ENV_FILE)"
printf '%s\n' "$line"
