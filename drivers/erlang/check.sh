#!/bin/sh
# The driver's own checks: the shared library's (warnings as errors, the NIF
# with -Wall -Werror, its EUnit tests), then this driver's modules compiled
# with warnings as errors (into a scratch folder; ebin/ is the build's), their
# EUnit tests (test/: every set-up ends at the gate, main taking one message),
# then Dialyzer over the library and the workloads together, every warning an
# error, against a PLT of erts, kernel, stdlib and crypto that the first check
# builds into bin/ (about a minute) and Dialyzer checks against the installed
# OTP on every run. Last, shellcheck over this folder's and the library's scripts.
set -eu
cd "$(dirname "$0")"
sh ../common/erlang/check.sh
for tool in dialyzer:erlang-dialyzer shellcheck:shellcheck; do
    command -v "${tool%%:*}" >/dev/null || {
        echo "check: ${tool%%:*} not found (Debian's ${tool#*:}, in the driver's apt list)" >&2
        exit 1
    }
done
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
mkdir "$OUT/common" "$OUT/driver"
erlc -Wall +warnings_as_errors +debug_info -o "$OUT/common" ../common/erlang/src/*.erl
erlc -Wall +warnings_as_errors +debug_info -pa "$OUT/common" -o "$OUT/driver" src/*.erl
mkdir "$OUT/test"
erlc -Wall +warnings_as_errors -o "$OUT/test" test/*.erl
erl -noshell -noinput -pa "$OUT/common" -pa "$OUT/driver" -pa "$OUT/test" -eval '
    case eunit:test([ringbench_erlang_gate_tests], []) of
        ok -> halt(0);
        _ -> halt(1)
    end.'
OTP=$(erl -noshell -noinput -eval 'io:format("~s", [erlang:system_info(otp_release)]), halt().')
PLT=bin/dialyzer-otp$OTP.plt
if [ ! -f "$PLT" ]; then
    mkdir -p bin
    echo "check: building Dialyzer's PLT of OTP $OTP into $PLT (once)" >&2
    dialyzer --quiet --build_plt --output_plt "$PLT.tmp" --apps erts kernel stdlib crypto
    mv "$PLT.tmp" "$PLT"
fi
dialyzer --quiet --plt "$PLT" "$OUT/common" "$OUT/driver"
shellcheck ./*.sh ../common/erlang/*.sh
