#!/bin/sh
# Creates Temporal's two databases on the compose stack's PostgreSQL when they are missing, then
# sets up their schemas (the version tables, from version 0.0) and upgrades them to the newest
# version this admin-tools image carries. Each step is idempotent: `create` leaves an existing
# database alone, `setup-schema -v 0.0` leaves a versioned schema at its version, and
# `update-schema` applies only the versions past the current one. Runs in the
# temporalio/admin-tools image; the connection comes from POSTGRES_SEEDS, DB_PORT, POSTGRES_USER,
# SQL_PASSWORD, DBNAME and VISIBILITY_DBNAME.
set -eu

schemas=/etc/temporal/schema/postgresql/v12
sql() { temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "$DB_PORT" -u "$POSTGRES_USER" "$@"; }

for pair in "$DBNAME:temporal" "$VISIBILITY_DBNAME:visibility"; do
  db=${pair%%:*} dir=${pair#*:}
  # The role's own database does not exist: `create` connects to "postgres" to create this one.
  sql --db "$db" create --defaultdb postgres
  sql --db "$db" setup-schema -v 0.0
  sql --db "$db" update-schema -d "$schemas/$dir/versioned"
  echo "schema of $db is current"
done
