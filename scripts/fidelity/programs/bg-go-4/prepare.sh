#!/bin/sh
# Turns orig/threadring.go-4.go into main.go. The one change: the ring size is read from
# argv[2] (default 503) instead of the constant NThreads = 503, so the array of
# 503 channels becomes a slice of that length. Run: {dir}/ring {hops} {n}
set -eu
cd "$(dirname "$0")"
sed -e 's/^const NThreads = 503$/var NThreads = 503/' \
    -e 's/^    if len(os.Args)>1 { n,_ = strconv.Atoi(os.Args\[1\]) }$/&\
    if len(os.Args)>2 { NThreads,_ = strconv.Atoi(os.Args[2]) }/' \
    -e 's/^    var channels \[NThreads\] chan Token$/    channels := make([]chan Token, NThreads)/' \
    orig/threadring.go-4.go > main.go
# The change must have applied (an unexpected original fails here, not at run time).
grep -q "^var N[Tt]hreads* = 503$" main.go && [ "$(grep -c "Atoi.*[Aa]rg.*\(2\]\|(1)\)" main.go)" = 1 ] \
    || { echo "prepare.sh: the change did not apply to orig/" >&2; exit 1; }
