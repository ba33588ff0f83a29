#!/bin/sh
# The driver's own checks (contract section 7), under two minutes:
#  1. hlint over the driver and its test, every hint an error (.hlint.yaml); shellcheck over the
#     scripts (it must be installed: the manifest's apt list); GHC's warnings as errors (-Wall
#     -Wcompat -Werror) over the executable's modules, type-checked only (-fno-code: the release
#     build already compiled them; warnings do not depend on code generation), and the test suite
#     built with them (-f werror, in bin/check, apart from the release build): the gate, the
#     countdown and the MVar hand-off slot under concurrency on two capabilities, and the spawn
#     phase's boundary (test/Primitives.hs; 4 times the random rounds with RINGBENCH_SLOW=1);
#  2. the one hand-written piece, hooks.c: gcc -Wall -Wextra -Werror, then a real allocation failure
#     (an address space too small for the ring asked for) must come out as a `limit` error record
#     with exit status 3;
#  3. the two variants' primitives under stress on two capabilities: rings with many tokens in
#     flight (the MVar ring's blocked puts), burst injection, and fan-in with many senders; the same
#     runs of handoff-forkon (its processes all on capability 0 at -N2, main free to run on 1).
set -eu
cd "$(dirname "$0")"
hlint .
shellcheck ./*.sh
cabal() { command cabal --config-file=cabal-offline.config "$@"; }
ghc -fno-code -XHaskell2010 -Wall -Wcompat -Werror -outputdir bin/lint -v0 Main.hs
cabal test -v0 --builddir=bin/check -f werror --test-show-details=direct primitives
gcc -Wall -Wextra -Werror -fsyntax-only -I"$(ghc --print-libdir)/include" hooks.c rusage.c
B=bin/ringbench-ghc
# shellcheck disable=SC3045 # dash's ulimit, which sh is here, has -v as bash's does
out=$( (ulimit -v 600000; $B +RTS -N1 -RTS --variant=handoff run spawn n=3000000) ) && rc=0 || rc=$?
case "$rc:$out" in
    3:*'"kind":"limit"'*) ;;
    *) echo "check: an allocation failure gave exit $rc and: $out" >&2; exit 1 ;;
esac
for v in stock handoff handoff-forkon; do
    for args in "ring n=3 m=3000 tokens=3" "ring n=64 m=200 tokens=64 burst=1" "ring n=300 m=5 tokens=299" \
                "fanin n=500 m=100" "pingpong m=5000" "tree n=10000" "ring n=10000 m=2 tokens=7 burst=1"; do
        # shellcheck disable=SC2086 # $args is split on purpose: one run's key=value words
        out=$($B +RTS -N2 -RTS --variant=$v run $args repeats=3) || { echo "check: $v $args failed: $out" >&2; exit 1; }
        [ "$(printf '%s\n' "$out" | grep -c '"type":"result"')" = 3 ] || { echo "check: $v $args: $out" >&2; exit 1; }
    done
done
echo "check: hlint, shellcheck, ghc -Wall -Werror, the primitives test, hooks.c, the limit record and the stress runs passed"
