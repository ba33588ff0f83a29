#!/bin/sh
# The driver's own checks: the shared library's (warnings as errors, the NIF
# with -Wall -Werror, its EUnit tests; ../common/erlang/check.sh, which also
# leaves the library compiled with warnings as errors and +debug_info in a
# scratch folder, for what follows), then this driver's modules compiled
# with warnings as errors (into the scratch folder; ebin/ is the build's),
# their EUnit tests (test/: every set-up ends at the gate, main taking one
# message), then Dialyzer over the library and the workloads together, every
# warning an error, against a PLT of erts, kernel, stdlib and crypto that the
# build leaves in bin/ (plt.sh; built here if missing, about a minute) and
# Dialyzer checks against the installed OTP on every run. Last, shellcheck
# over this folder's and the library's scripts.
set -eu
cd "$(dirname "$0")"
for tool in dialyzer:erlang-dialyzer shellcheck:shellcheck; do
    command -v "${tool%%:*}" >/dev/null || {
        echo "check: ${tool%%:*} not found (Debian's ${tool#*:}, in the driver's apt list)" >&2
        exit 1
    }
done
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
sh ../common/erlang/check.sh "$OUT/common"
mkdir "$OUT/driver" "$OUT/test"
erlc -Wall +warnings_as_errors +debug_info -pa "$OUT/common/ebin" -o "$OUT/driver" src/*.erl
erlc -Wall +warnings_as_errors -o "$OUT/test" test/*.erl
erl -noshell -noinput -pa "$OUT/common/ebin" -pa "$OUT/driver" -pa "$OUT/test" -eval '
    case eunit:test([ringbench_erlang_gate_tests], []) of
        ok -> halt(0);
        _ -> halt(1)
    end.'
PLT=$(sh plt.sh)
dialyzer --quiet --plt "$PLT" "$OUT/common/ebin" "$OUT/driver"
shellcheck ./*.sh ../common/erlang/*.sh
