#!/bin/sh
# Turns orig/threadring.yarv into ring.rb: line endings CRLF -> LF, and the one change: the ring
# size is read from the second argument (default 503) instead of the constant THREAD_COUNT = 503;
# the hop count was already its first argument.
# Run: ruby {dir}/ring.rb {hops} {n}
set -eu
cd "$(dirname "$0")"
tr -d '\r' < orig/threadring.yarv | sed -e 's/^THREAD_COUNT = 503$/THREAD_COUNT = (ARGV[1] || 503).to_i/' > ring.rb
# The change must have applied (an unexpected original fails here, not at run time).
[ "$(grep -c '^THREAD_COUNT = (ARGV\[1\] || 503).to_i$' ring.rb)" = 1 ] \
    || { echo "prepare.sh: the change did not apply to orig/" >&2; exit 1; }
