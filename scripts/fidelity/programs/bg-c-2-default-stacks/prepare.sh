#!/bin/sh
# Turns orig/threadring.gcc-2.gcc into the runnable ring.c (change.patch): the change of bg-c-2
# (ring size from argv[2], calloc'd arrays) and, unlike bg-c-2, no
# pthread_attr_setstacksize(PTHREAD_STACK_MIN): the threads get glibc's default stack, as the
# driver's do. Nothing else.
set -e
cd "$(dirname "$0")"
cat orig/threadring.gcc-2.gcc > ring.c
patch -s ring.c change.patch
