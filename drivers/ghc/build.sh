#!/bin/sh
# The standard release build of a GHC program (ghc -O2, the threaded runtime, RTS options allowed on
# the command line), with the toolchain pinned: Debian bookworm's ghc 9.0.2, the one measured.
set -eu
want=9.0.2
have=$(ghc --numeric-version)
if [ "$have" != "$want" ]; then
    echo "ringbench-ghc: needs ghc $want (Debian's package ghc), found $have" >&2
    exit 1
fi
mkdir -p bin/obj
exec ghc -O2 -threaded -rtsopts -v0 -outputdir bin/obj -o bin/ringbench-ghc Main.hs hooks.c rusage.c
