#!/bin/sh
# orig/threadring.java-4.java -> threadring.java on virtual threads: as bg-java-4
# (ring size from argv[1]), plus (1) the pool's thread factory is
# Thread.ofVirtual().factory(), so its 503 workers are virtual threads, and
# (2) main waits for the pool to terminate (virtual threads are daemons: without
# it the JVM would exit as soon as main returns); nothing else.
set -eu
cd "$(dirname "$0")"
cp orig/threadring.java-4.java threadring.java
sed -i \
  -e 's/private static final int MAX_NODES = 503;/private static int MAX_NODES = 503; \/\/ ringbench: set from args[1]/' \
  -e 's/^\( *\)threadring ring = new threadring(Integer.parseInt(args\[0\]));/\1MAX_NODES = Integer.parseInt(args[1]); \/\/ ringbench\n&/' \
  -e 's/executor = Executors.newFixedThreadPool(MAX_THREADS);/executor = Executors.newFixedThreadPool(MAX_THREADS, Thread.ofVirtual().factory()); \/\/ ringbench: virtual/' \
  -e 's/public static void main(String\[\] args) {/public static void main(String[] args) throws InterruptedException { \/\/ ringbench: throws/' \
  -e 's/^\( *\)node.sendMessage(new TokenMessage(1,0));/&\n\1ring.executor.awaitTermination(Long.MAX_VALUE, java.util.concurrent.TimeUnit.DAYS); \/\/ ringbench: wait (virtual threads are daemons)/' \
  threadring.java
grep -q 'Thread.ofVirtual().factory()' threadring.java
grep -q 'ring.executor.awaitTermination' threadring.java
grep -q 'MAX_NODES = Integer.parseInt(args\[1\])' threadring.java
