#!/bin/sh
# Turns orig/threadring.ghc into threadring.hs: line endings CRLF -> LF, and the one change: the ring
# size is read from the second argument (default 503) instead of the top-level constant ring = 503
# (main binds ring itself, before its first use). Run: {dir}/ring {hops} {n} +RTS -N{cores} -RTS
set -eu
cd "$(dirname "$0")"
tr -d '\r' < orig/threadring.ghc | sed -e 's/^ring = 503$//' \
    -e 's/^main = do$/main = do\
  ring <- (\\as -> if length as > 1 then read (as !! 1) else 503 :: Int) <$> getArgs/' \
    > threadring.hs
# The change must have applied (an unexpected original fails here, not at run time).
if grep -q "^ring = 503" threadring.hs || [ "$(grep -c 'as !! 1' threadring.hs)" != 1 ]; then
    echo "prepare.sh: the change did not apply to orig/" >&2
    exit 1
fi
