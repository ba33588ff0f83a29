#!/bin/sh
# Turns orig/threadring.cr into ring.cr. The one change: the ring size is read from the second
# argument (default 503) instead of the constant THREAD_COUNT = 503; the hop count was already its
# first argument.
# Run: {dir}/ring {hops} {n}
set -eu
cd "$(dirname "$0")"
sed -e 's/^THREAD_COUNT = 503$/THREAD_COUNT = (ARGV[1]? || 503).to_i/' orig/threadring.cr > ring.cr
# The change must have applied (an unexpected original fails here, not at run time).
[ "$(grep -c '^THREAD_COUNT = (ARGV\[1\]? || 503).to_i$' ring.cr)" = 1 ] \
    || { echo "prepare.sh: the change did not apply to orig/" >&2; exit 1; }
