#!/bin/sh
# Turns orig/threadring.gcc-2.gcc into the runnable ring.c (change.patch):
# ring size NUM_THREADS from argv[2] instead of the constant 503, so the four static arrays become calloc'd arrays of that size; nothing else.
set -e
cd "$(dirname "$0")"
cat orig/threadring.gcc-2.gcc > ring.c
patch -s ring.c change.patch
