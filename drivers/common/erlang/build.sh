#!/bin/sh
# Build the BEAM family's shared library: src/*.erl into ebin/ (erlc, the
# standard build) and the CPU-clock NIF into priv/ when a C compiler and
# erl_nif.h (Debian: erlang-dev) are present; without the NIF the CPU clock
# falls back to /proc (src/ringbench_clock.erl). Each driver's build runs it.
set -eu
cd "$(dirname "$0")"
mkdir -p ebin priv
erlc -Wall -o ebin src/*.erl
INC=$(erl -noshell -noinput -eval 'io:format("~s", [filename:join([code:root_dir(), "usr", "include"])]), halt().')
if ! command -v cc >/dev/null 2>&1; then
    echo "ringbench common/erlang: no C compiler; CPU times fall back to /proc schedstat" >&2
elif [ ! -f "$INC/erl_nif.h" ]; then
    echo "ringbench common/erlang: erl_nif.h not found (install erlang-dev); CPU times fall back to /proc schedstat" >&2
else
    cc -O2 -fPIC -shared -Wall -o priv/ringbench_clock.so c_src/ringbench_clock.c -I"$INC" \
        || echo "ringbench common/erlang: NIF build failed; CPU times fall back to /proc schedstat" >&2
fi
