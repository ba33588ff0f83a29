#!/bin/sh
# Turns orig/threadring.go into main.go. The one change: the ring size is read from the
# second argument (default 503) instead of the constant Nthread = 503.
# Run: {dir}/ring {hops} {n}
set -eu
cd "$(dirname "$0")"
sed -e 's/^const Nthread = 503$/var Nthread = 503/' \
    -e 's/^   if flag.NArg() > 0 { n,_ = strconv.Atoi( flag.Arg(0) ) }$/&\
   if flag.NArg() > 1 { Nthread,_ = strconv.Atoi( flag.Arg(1) ) }/' \
    orig/threadring.go > main.go
# The change must have applied (an unexpected original fails here, not at run time).
grep -q "^var N[Tt]hreads* = 503$" main.go && [ "$(grep -c "Atoi.*[Aa]rg.*\(2\]\|(1)\)" main.go)" = 1 ] \
    || { echo "prepare.sh: the change did not apply to orig/" >&2; exit 1; }
