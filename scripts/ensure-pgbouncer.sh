#!/usr/bin/env bash
# Makes sure PgBouncer is installed for the pooler tests (test/pooler), which start their own pgbouncer process in
# transaction mode in front of the test database. Idempotent: does nothing when pgbouncer is on the PATH.
# Installing needs root and apt-get; anywhere else it stops with a message saying what to install.
set -euo pipefail

if command -v pgbouncer >/dev/null 2>&1 || [[ -x /usr/sbin/pgbouncer ]]; then
  exit 0
fi

if [[ "$(id -u)" != "0" ]]; then
  echo "ensure-pgbouncer: pgbouncer is missing and this is not root: install it with" >&2
  echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends pgbouncer" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-pgbouncer: pgbouncer is missing and apt-get is not available: install PgBouncer (1.18 or later)" >&2
  exit 1
fi

echo "ensure-pgbouncer: installing pgbouncer with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends pgbouncer
# The package enables a system-wide pgbouncer on port 6432; the tests start their own, so it is not needed.
if command -v systemctl >/dev/null 2>&1; then
  systemctl disable --now pgbouncer >/dev/null 2>&1 || true
fi

if ! command -v pgbouncer >/dev/null 2>&1 && [[ ! -x /usr/sbin/pgbouncer ]]; then
  echo "ensure-pgbouncer: apt-get finished but pgbouncer is still missing" >&2
  exit 1
fi
"$(command -v pgbouncer || echo /usr/sbin/pgbouncer)" --version >&2
