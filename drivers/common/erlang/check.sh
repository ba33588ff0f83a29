#!/bin/sh
# The BEAM family's own checks for this library: every module compiled with
# warnings as errors, the NIF with -Wall -Werror, and the EUnit tests of the
# parameter parser, the JSON output, the nodes, the clock, the ready counter
# under concurrency and the batch verb's loop and isolation (test/). Builds
# into a scratch folder; ebin/ and priv/ are left as the build made them.
# Each driver's check runs it (the Erlang and the Elixir driver).
#
# Usage: check.sh [DIR]. With DIR, the modules compiled with warnings as
# errors and +debug_info are left in DIR/ebin for the caller (the Erlang
# driver's Dialyzer and tests), the NIF in DIR/priv.
#
# Both drivers' checks run this one, so a pass is recorded in .check-passed
# (git-ignored) under a key: the SHA-256 of this script, src/, test/ and
# c_src/, with the OTP and C compiler versions. A check that finds the same
# key has nothing new to prove and skips the NIF and the tests (the modules
# are still compiled, with warnings as errors); any change to those files or
# tools runs everything again, and a failed run records nothing.
set -eu
if [ $# -gt 0 ]; then
    mkdir -p "$1"
    OUT=$(cd "$1" && pwd)
else
    OUT=$(mktemp -d)
    trap 'rm -rf "$OUT"' EXIT
fi
cd "$(dirname "$0")"
# ebin/ and priv/ side by side, as the build lays them out, so that the tests
# load the NIF as a driver does (ringbench_clock:load_nif/0); the test modules
# in a folder of their own, so that the caller's ebin holds the library only.
mkdir -p "$OUT/ebin" "$OUT/priv" "$OUT/test"
erlc -Wall +warnings_as_errors +debug_info -o "$OUT/ebin" src/*.erl
# One VM start for the two facts the rest needs: erl_nif.h's folder and the
# exact OTP version (releases/<major>/OTP_VERSION: patch releases included).
ERL=$(erl -noshell -noinput -eval '
    Root = code:root_dir(), Rel = erlang:system_info(otp_release),
    {ok, V} = file:read_file(filename:join([Root, "releases", Rel, "OTP_VERSION"])),
    io:format("~s~n~s ~s", [filename:join([Root, "usr", "include"]), string:trim(V),
                            erlang:system_info(version)]), halt().')
INC=$(printf '%s\n' "$ERL" | sed -n 1p)
CC=none
if command -v cc >/dev/null 2>&1 && [ -f "$INC/erl_nif.h" ]; then
    CC=$(cc --version | sed -n 1p)
fi
KEY=$({
    printf '%s\n%s\n' "$ERL" "$CC"
    sha256sum check.sh src/*.erl test/*.erl c_src/*
} | sha256sum | cut -d' ' -f1)
if [ -f .check-passed ] && [ "$(cat .check-passed)" = "$KEY" ]; then
    echo "common/erlang: passed before at this content (.check-passed): tests skipped" >&2
    exit 0
fi
erlc -Wall +warnings_as_errors -o "$OUT/test" test/*.erl
if [ "$CC" != none ]; then
    cc -O2 -fPIC -shared -Wall -Werror -o "$OUT/priv/ringbench_clock.so" \
        c_src/ringbench_clock.c -I"$INC"
fi
# The nodes' tests start a local node, as the driver's command line allows.
erl -noshell -noinput -start_epmd false -epmd_module ringbench_epmd -nocookie \
    -pa "$OUT/ebin" -pa "$OUT/test" -eval '
    case eunit:test([ringbench_params_tests, ringbench_json_tests, ringbench_nodes_tests,
                     ringbench_clock_tests, ringbench_ready_tests, ringbench_batch_tests], []) of
        ok -> halt(0);
        _ -> halt(1)
    end.'
printf '%s\n' "$KEY" > .check-passed.tmp
mv .check-passed.tmp .check-passed
