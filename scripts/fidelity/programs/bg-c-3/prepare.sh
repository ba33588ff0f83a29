#!/bin/sh
# Turns orig/threadring.gcc-3.gcc into the runnable ring.c (change.patch):
# ring size NUMBER_OF_THREADS from argv[2] (a variable, default 503) instead of the constant 503; nothing else (its arrays were already malloc'd).
set -e
cd "$(dirname "$0")"
cat orig/threadring.gcc-3.gcc > ring.c
patch -s ring.c change.patch
