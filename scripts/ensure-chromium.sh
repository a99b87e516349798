#!/usr/bin/env bash
# Makes sure Debian's chromium is installed for the dashboard's browser tests (driven by playwright-core,
# which ships no browser of its own). Idempotent: does nothing when /usr/bin/chromium exists. Installing
# needs root and apt-get; anywhere else it stops with a message saying what to install.
set -euo pipefail

CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"

if [[ -x "$CHROMIUM" ]]; then
  exit 0
fi

if [[ "$(id -u)" != "0" ]]; then
  echo "ensure-chromium: $CHROMIUM is missing and this is not root: install it with" >&2
  echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends chromium" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: $CHROMIUM is missing and apt-get is not available: install Chromium at $CHROMIUM" >&2
  exit 1
fi

echo "ensure-chromium: installing chromium with apt-get (takes a minute or two)" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends chromium

if [[ ! -x "$CHROMIUM" ]]; then
  echo "ensure-chromium: apt-get finished but $CHROMIUM is still missing" >&2
  exit 1
fi
"$CHROMIUM" --version >&2
