#!/bin/sh
# The driver's own checks: the shared library's (erlc +warnings_as_errors, the NIF with -Wall
# -Werror, its EUnit tests), then Elixir's own: `mix format --check-formatted` and every module
# compiled afresh with --warnings-as-errors (unused variables, unreachable clauses, calls to
# undefined functions of Elixir, Erlang/OTP or the library, @behaviour callbacks), the library
# with it as Mix's dependency, into a scratch build path: _build/ stays as the build made it. Then
# the ExUnit tests (test/: every set-up ends at the gate, main taking one message), into another
# scratch path. No hand-written primitive to stress: every queue and wait is the BEAM's own.
# Last, shellcheck over this folder's scripts (it must be installed: the manifest's apt list).
set -eu
cd "$(dirname "$0")"
command -v shellcheck >/dev/null || {
    echo "check: shellcheck not found (Debian's shellcheck, in the driver's apt list)" >&2
    exit 1
}
sh ../common/erlang/check.sh
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
mix format --check-formatted
MIX_ENV=prod MIX_BUILD_PATH="$OUT/prod" mix compile --force --warnings-as-errors
MIX_BUILD_PATH="$OUT/test" mix test --warnings-as-errors
shellcheck ./*.sh
