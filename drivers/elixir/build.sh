#!/bin/sh
# Build the Elixir driver with Mix's release build, MIX_ENV=prod mix compile: the BEAM family's
# library (../common/erlang, a path dependency in mix.exs) into _build/prod/lib/ringbench/, the
# workloads into _build/prod/lib/ringbench_elixir/ (ebin/ and the consolidated protocols).
# First the library's own build.sh, for its CPU-clock NIF in ../common/erlang/priv/, which Mix
# links into the library's build.
set -eu
cd "$(dirname "$0")"
sh ../common/erlang/build.sh
MIX_ENV=prod mix compile
