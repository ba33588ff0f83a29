#!/bin/sh
# Turns orig/threadring.gcc into the runnable ring.c (change.patch):
# line endings CRLF -> LF; ring size THREADS from argv[2] instead of the constant 503, so the three static arrays (mutexes, data, 16 KiB stacks) become calloc'd arrays of that size; nothing else.
set -e
cd "$(dirname "$0")"
tr -d '\r' < orig/threadring.gcc > ring.c
patch -s ring.c change.patch
