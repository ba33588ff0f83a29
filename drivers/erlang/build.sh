#!/bin/sh
# Build the Erlang driver: the benchmark module (required) and the optional
# CPU-clock NIF (needs a C compiler and erl_nif.h from Debian's erlang-dev).
set -e
cd "$(dirname "$0")"
mkdir -p ebin
if command -v cc >/dev/null 2>&1; then
    INC=$(erl -noshell -noinput -eval 'io:format("~s", [filename:join([code:root_dir(), "usr", "include"])]), halt().')
    if [ -f "$INC/erl_nif.h" ]; then
        mkdir -p priv
        cc -O2 -fPIC -shared -Wall -o priv/ringbench_cpu.so c_src/ringbench_cpu.c -I"$INC" \
            || echo "ringbench erlang: NIF build failed; CPU times fall back to /proc schedstat" >&2
    else
        echo "ringbench erlang: erl_nif.h not found (install erlang-dev); CPU times fall back to /proc schedstat" >&2
    fi
else
    echo "ringbench erlang: no C compiler; CPU times fall back to /proc schedstat" >&2
fi
erlc -Wall -o ebin src/*.erl
