#!/bin/sh
# Turns orig/threadring.gcc-4.gcc into the runnable ring.c (change.patch):
# ring size THREAD_COUNT from argv[2] (a variable, default 503) instead of the constant 503, so the static passing_threads array becomes a calloc'd one; nothing else.
set -e
cd "$(dirname "$0")"
cat orig/threadring.gcc-4.gcc > ring.c
patch -s ring.c change.patch
