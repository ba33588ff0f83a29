#!/bin/sh
# The driver's own checks: the shared library's (warnings as errors, the NIF
# with -Wall -Werror, its EUnit tests), then this driver's modules compiled
# with warnings as errors (into a scratch folder; ebin/ is the build's).
set -eu
cd "$(dirname "$0")"
sh ../common/erlang/check.sh
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
erlc -Wall +warnings_as_errors -o "$OUT" ../common/erlang/src/ringbench.erl
erlc -Wall +warnings_as_errors -pa "$OUT" -o "$OUT" src/*.erl
