#!/bin/sh
# orig/threadring.java-7.java -> threadring.java on virtual threads: as bg-java-7
# (ring size from argv[1]), plus the thread kind: a virtual thread cannot be
# subclassed, so each node `implements Runnable` and holds its own thread, made
# with Thread.ofVirtual().name(..).unstarted(this) where the original called
# super(name); getName(), unpark(node) and node.start() go through that field;
# and main joins thread 1 at the end (virtual threads are daemons: without it
# the JVM would exit as soon as main returns; the ring's System.exit ends the
# program as before); and the start-up fix of bg-java-7 (main unparks thread 1
# after clearing its flag). The per-hop code (park loop, message field, volatile flag,
# unpark) is unchanged. (The original has CRLF line ends; they are kept.)
set -eu
cd "$(dirname "$0")"
cp orig/threadring.java-7.java threadring.java
sed -i \
  -e 's/static final int THREAD_COUNT = 503;/static int THREAD_COUNT = 503; \/\/ ringbench: set from args[1]/' \
  -e 's/^\( *\)threadring first = new threadring(1);/\1THREAD_COUNT = Integer.parseInt(args[1]); \/\/ ringbench\r\n&/' \
  -e 's/^public class threadring extends Thread {/public class threadring implements Runnable { \/\/ ringbench: was extends Thread/' \
  -e 's/^\( *\)int message;/&\r\n\1final Thread thread; \/\/ ringbench: this node'"'"'s virtual thread/' \
  -e 's/super(Integer.toString(name));/thread = Thread.ofVirtual().name(Integer.toString(name)).unstarted(this); \/\/ ringbench: was super(..)/' \
  -e 's/System.out.println(getName());/System.out.println(thread.getName()); \/\/ ringbench: thread./' \
  -e 's/LockSupport.unpark(nextThread);/LockSupport.unpark(nextThread.thread); \/\/ ringbench: .thread/' \
  -e 's/\(first\|current\)\.start();/\1.thread.start();/' \
  -e 's/^\( *\)current.thread.start(); \/\/ Thread 503/&\r\n\1first.thread.join(); \/\/ ringbench: wait (virtual threads are daemons)/' \
  -e 's/^\( *\)first.waiting = false;/&\r\n\1LockSupport.unpark(first.thread); \/\/ ringbench: start-up fix, see README/' \
  threadring.java
grep -q 'LockSupport.unpark(first.thread); // ringbench' threadring.java
grep -q 'Thread.ofVirtual()' threadring.java
grep -q 'first.thread.join()' threadring.java
test "$(grep -c '\.thread\.start()' threadring.java)" -eq 4
