#!/bin/sh
# Turns orig/threadring.erlang-2.erlang into the runnable threadring.erl (change.patch): the change
# of bg-erlang-2 (the ring size from a second argument, read by ?RING from the process dictionary)
# and the program's roundtrip/2 loop replaced by the ring loop of drivers/erlang (ring_loop/2: a
# receipt count, its four clauses in the same order). Spawning, injection and halting stay the
# program's.
set -e
cd "$(dirname "$0")"
cat orig/threadring.erlang-2.erlang > threadring.erl
patch -s threadring.erl change.patch
