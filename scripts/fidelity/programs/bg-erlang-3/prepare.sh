#!/bin/sh
# Turn the fetched Benchmarks Game program into the runnable copy threadring.erl.
# The one change: the ring size is read from a second argument (main([Token, Ring])) and kept in
# the main process's dictionary, where the ?TOTAL_PROCESSES macro (used only by process_spawner/2,
# which runs in the main process) now reads it, instead of the constant 503. The per-hop loop is
# untouched; the one final line (the name of the process that receives 0) stays.
set -e
cd "$(dirname "$0")"
sed -e 's/^-define(TOTAL_PROCESSES, 503)\.$/-define(TOTAL_PROCESSES, get(ring_size))./' \
    -e 's/^main(\[Arg\]) ->$/main([Arg, Ring]) ->\n  put(ring_size, list_to_integer(Ring)),/' \
    orig/threadring.erlang-3.erlang > threadring.erl
grep -q '^-define(TOTAL_PROCESSES, get(ring_size))\.$' threadring.erl
grep -q '^  put(ring_size, list_to_integer(Ring)),$' threadring.erl
