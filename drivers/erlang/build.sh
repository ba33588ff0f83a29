#!/bin/sh
# Build the Erlang driver: the BEAM family's shared library first
# (../common/erlang: its ebin/ and the CPU-clock NIF), then the workloads
# into ebin/. erlc is the standard build; driver.toml puts both ebin/
# folders on the code path with -pa. Last, when Dialyzer is installed,
# the PLT that check.sh uses (plt.sh: built once per OTP version, so that
# no check has to).
set -eu
cd "$(dirname "$0")"
sh ../common/erlang/build.sh
mkdir -p ebin
erlc -Wall -pa ../common/erlang/ebin -o ebin src/*.erl
if command -v dialyzer >/dev/null; then
    sh plt.sh >/dev/null
fi
