#!/bin/sh
# The BEAM family's own checks for this library: every module compiled with
# warnings as errors, the NIF with -Wall -Werror, and the EUnit tests of the
# parameter parser, the JSON output, the nodes, the clock, the ready counter
# under concurrency and the batch verb's loop and isolation (test/). Builds
# into a scratch folder; ebin/ and priv/ are left as the build made them.
# Each driver's check runs it.
set -eu
cd "$(dirname "$0")"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
# ebin/ and priv/ side by side, as the build lays them out, so that the tests
# load the NIF as a driver does (ringbench_clock:load_nif/0).
mkdir -p "$OUT/ebin" "$OUT/priv"
erlc -Wall +warnings_as_errors +debug_info -o "$OUT/ebin" src/*.erl
erlc -Wall +warnings_as_errors -o "$OUT/ebin" test/*.erl
INC=$(erl -noshell -noinput -eval 'io:format("~s", [filename:join([code:root_dir(), "usr", "include"])]), halt().')
if command -v cc >/dev/null 2>&1 && [ -f "$INC/erl_nif.h" ]; then
    cc -O2 -fPIC -shared -Wall -Werror -o "$OUT/priv/ringbench_clock.so" c_src/ringbench_clock.c -I"$INC"
fi
# The nodes' tests start a local node, as the driver's command line allows.
erl -noshell -noinput -start_epmd false -epmd_module ringbench_epmd -nocookie -pa "$OUT/ebin" -eval '
    case eunit:test([ringbench_params_tests, ringbench_json_tests, ringbench_nodes_tests,
                     ringbench_clock_tests, ringbench_ready_tests, ringbench_batch_tests], []) of
        ok -> halt(0);
        _ -> halt(1)
    end.'
