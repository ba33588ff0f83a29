#!/bin/sh
# orig/threadring.java-5.java -> threadring.java on virtual threads: as bg-java-5
# (ring size = pool size from argv[1]), plus (1) the pool's thread factory is
# Thread.ofVirtual().factory(), and (2) main then sleeps (virtual threads are
# daemons: without it the JVM would exit as soon as main returns; the ring's
# System.exit ends the program as before); nothing else.
set -eu
cd "$(dirname "$0")"
cp orig/threadring.java-5.java threadring.java
sed -i \
  -e 's/private static final int TOTAL_NODES = 503;/private static int TOTAL_NODES = 503; \/\/ ringbench: set from args[1]/' \
  -e 's/private static final ExecutorService EXECUTOR = Executors.newFixedThreadPool(TOTAL_NODES);/private static ExecutorService EXECUTOR; \/\/ ringbench: created in main/' \
  -e 's/^\( *\)firstNode = new Node(1);/\1TOTAL_NODES = Integer.parseInt(args[1]); \/\/ ringbench\n\1EXECUTOR = Executors.newFixedThreadPool(TOTAL_NODES, Thread.ofVirtual().factory()); \/\/ ringbench: virtual\n&/' \
  -e 's/public static void main(String\[\] args) {/public static void main(String[] args) throws InterruptedException { \/\/ ringbench: throws/' \
  -e 's/^\( *\)firstNode.push(Integer.parseInt(args\[0\]));/&\n\1Thread.sleep(Long.MAX_VALUE); \/\/ ringbench: wait (virtual threads are daemons)/' \
  threadring.java
grep -q 'Thread.ofVirtual().factory()' threadring.java
grep -q 'Thread.sleep(Long.MAX_VALUE)' threadring.java
