#!/bin/sh
# The driver's own checks: the shared library's (erlc +warnings_as_errors, the NIF with -Wall
# -Werror, its EUnit tests), then Elixir's own: `mix format --check-formatted` and every module
# compiled afresh with --warnings-as-errors (unused variables, unreachable clauses, calls to
# undefined functions of Elixir, Erlang/OTP or the library, @behaviour callbacks), the library
# with it as Mix's dependency, into a scratch build path: _build/ stays as the build made it. No
# hand-written primitive to stress: every queue and wait is the BEAM's own.
set -eu
cd "$(dirname "$0")"
sh ../common/erlang/check.sh
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
mix format --check-formatted
MIX_ENV=prod MIX_BUILD_PATH="$OUT" mix compile --force --warnings-as-errors
