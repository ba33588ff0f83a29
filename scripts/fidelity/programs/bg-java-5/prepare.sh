#!/bin/sh
# orig/threadring.java-5.java -> threadring.java: the ring size (TOTAL_NODES, which
# is also the pool size, as in the original) from argv[1] instead of the constant
# 503, so the pool is created in main once it is known; argv[0] stays the hop
# count; nothing else.
set -eu
cd "$(dirname "$0")"
cp orig/threadring.java-5.java threadring.java
sed -i \
  -e 's/private static final int TOTAL_NODES = 503;/private static int TOTAL_NODES = 503; \/\/ ringbench: set from args[1]/' \
  -e 's/private static final ExecutorService EXECUTOR = Executors.newFixedThreadPool(TOTAL_NODES);/private static ExecutorService EXECUTOR; \/\/ ringbench: created in main/' \
  -e 's/^\( *\)firstNode = new Node(1);/\1TOTAL_NODES = Integer.parseInt(args[1]); \/\/ ringbench\n\1EXECUTOR = Executors.newFixedThreadPool(TOTAL_NODES); \/\/ ringbench\n&/' \
  threadring.java
grep -q 'EXECUTOR = Executors.newFixedThreadPool(TOTAL_NODES); // ringbench' threadring.java
