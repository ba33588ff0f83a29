#!/bin/sh
# bg-erlang-2 (its prepare.sh: the ring size from a second argument), then change.patch: the
# program's roundtrip/2 loop replaced by the ring loop of drivers/erlang (ring_loop/2: a receipt
# count, its four clauses in the same order). Spawning, injection and halting stay the program's.
set -e
cd "$(dirname "$0")"
sed -e 's/^-define(RING, 503)\.$/-define(RING, get(ring_size))./' \
    -e 's/^main(\[Arg\]) ->$/main([Arg, Ring]) ->\n   put(ring_size, list_to_integer(Ring)),/' \
    orig/threadring.erlang-2.erlang > threadring.erl
grep -q '^-define(RING, get(ring_size))\.$' threadring.erl
grep -q '^   put(ring_size, list_to_integer(Ring)),$' threadring.erl
patch -s threadring.erl change.patch
