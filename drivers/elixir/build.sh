#!/bin/sh
# Build the Elixir driver: the BEAM family's shared library first (../common/erlang: its ebin/
# and the CPU-clock NIF, as the Erlang driver builds it), then the workloads with Mix's release
# build, MIX_ENV=prod mix compile, into _build/prod/lib/ringbench_elixir/ (ebin/ and the
# consolidated protocols). The library's ebin/ is on the code path so that the compiler checks
# every call into it and the @behaviour; driver.toml puts both on the path for the run.
set -eu
cd "$(dirname "$0")"
sh ../common/erlang/build.sh
MIX_ENV=prod elixir -pa ../common/erlang/ebin -S mix compile
