#!/bin/sh
# orig/threadring.java-4.java -> threadring.java: the ring size (MAX_NODES) from
# argv[1] instead of the constant 503; argv[0] stays the hop count; the pool
# stays MAX_THREADS = 503 platform threads; nothing else.
set -eu
cd "$(dirname "$0")"
cp orig/threadring.java-4.java threadring.java
sed -i \
  -e 's/private static final int MAX_NODES = 503;/private static int MAX_NODES = 503; \/\/ ringbench: set from args[1]/' \
  -e 's/^\( *\)threadring ring = new threadring(Integer.parseInt(args\[0\]));/\1MAX_NODES = Integer.parseInt(args[1]); \/\/ ringbench\n&/' \
  threadring.java
grep -q 'MAX_NODES = Integer.parseInt(args\[1\])' threadring.java
