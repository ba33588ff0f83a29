#!/bin/sh
# The standard release build of a GHC program, by cabal (ringbench-ghc.cabal: -O2, the threaded
# runtime, RTS options allowed on the command line), with the toolchain pinned by cabal.project
# (with-compiler: ghc-9.0.2, Debian bookworm's, the one measured). Offline: the dependencies are
# GHC's boot packages and cabal-offline.config names no package repository.
set -eu
cd "$(dirname "$0")"
cabal() { command cabal --config-file=cabal-offline.config "$@"; }
cabal build -v0 --builddir=bin/dist exe:ringbench-ghc
mkdir -p bin
cp "$(cabal list-bin -v0 --builddir=bin/dist exe:ringbench-ghc)" bin/ringbench-ghc
