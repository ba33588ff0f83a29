#!/usr/bin/env bash
# The build: nothing to compile (Node.js runs the sources); check that /usr/bin/node is the pinned
# Node.js 20, and install the pinned lint tools of `check` (eslint, package-lock.json) with npm ci.
set -euo pipefail
cd "$(dirname "$0")"
major=$(/usr/bin/node -p 'process.versions.node.split(".")[0]')
if [ "$major" != 20 ]; then
  echo "node: the driver is pinned to Node.js 20 (/usr/bin/node), found $(/usr/bin/node --version)" >&2
  exit 1
fi
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
