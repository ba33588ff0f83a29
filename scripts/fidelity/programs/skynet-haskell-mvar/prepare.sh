#!/bin/sh
# Turns orig/MVar.hs (the skynet repository's Haskell MVar tree, a module exporting `run`) into
# MVar.hs. The one change: the tree's depth (6: 10^6 leaves, fanout `children = 10`) is read from
# the first argument, so the leaves are 10^depth. Main.hs (written here) is `main = MVar.run`; the
# repository's own Main runs it under criterion. Run: {dir}/skynet {depth} +RTS -N{cores} -RTS,
# which prints "Result: <sum> in <seconds>s", the time of the tree alone.
set -eu
cd "$(dirname "$0")"
sed -e 's/^import Data.Time.Clock         (getCurrentTime, diffUTCTime)$/&\
import System.Environment      (getArgs)/' \
    -e 's/^    c      <- forkSkynet 6 0$/    depth  <- read . head <$> getArgs\
    c      <- forkSkynet depth 0/' \
    orig/MVar.hs > MVar.hs
if [ "$(grep -c 'getArgs' MVar.hs)" != 2 ] || grep -q "forkSkynet 6 0" MVar.hs; then
    echo "prepare.sh: the change did not apply to orig/" >&2
    exit 1
fi
