#!/usr/bin/env bash
# Makes sure iproute2 (ip, tc) is installed for the cluster tests (test/cluster), which put each instance on a host of
# its own in a network namespace and cut hosts off with tc. Idempotent: does nothing when both are on the PATH.
# Installing needs root and apt-get; anywhere else it stops with a message saying what to install.
set -euo pipefail

if command -v ip >/dev/null 2>&1 && command -v tc >/dev/null 2>&1; then
  exit 0
fi

if [[ "$(id -u)" != "0" ]] || ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-iproute2: ip or tc is missing: install iproute2 (e.g. sudo apt-get install -y iproute2)" >&2
  exit 1
fi

echo "ensure-iproute2: installing iproute2 with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends iproute2
ip -V >&2
