#!/bin/sh
# The driver's own checks: the shared library's (../common/erlang/check.sh: erlc
# +warnings_as_errors, the NIF with -Wall -Werror, its EUnit tests), then Elixir's own, in one
# Mix run (one VM, one compile): `mix format --check-formatted`; every module compiled afresh
# with --warnings-as-errors (unused variables, unreachable clauses, calls to undefined functions
# of Elixir, Erlang/OTP or the library, @behaviour callbacks) in the prod environment the build
# uses, the library with it as Mix's dependency, into a scratch build path: _build/ stays as the
# build made it; then the ExUnit tests (test/: every set-up ends at the gate, main taking one
# message) against that same build (MIX_ENV set, so mix test runs in it). No hand-written
# primitive to stress: every queue and wait is the BEAM's own. Last, shellcheck over this
# folder's scripts (it must be installed: the manifest's apt list).
set -eu
cd "$(dirname "$0")"
command -v shellcheck >/dev/null || {
    echo "check: shellcheck not found (Debian's shellcheck, in the driver's apt list)" >&2
    exit 1
}
sh ../common/erlang/check.sh
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
MIX_ENV=prod MIX_BUILD_PATH="$OUT" mix "do" format --check-formatted, \
    compile --force --warnings-as-errors, test --warnings-as-errors
shellcheck ./*.sh
