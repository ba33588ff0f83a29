#!/bin/sh
# orig/threadring.java-7.java -> threadring.java: the ring size from argv[1]
# instead of the constant 503 (argv[0] stays the hop count); and one start-up
# fix: main also unparks thread 1 after setting its waiting flag to false (the
# original never does, so when thread 1 parks before main clears the flag the
# token never starts and the program hangs: seen in ~1 run of 3 here). The
# per-hop code is unchanged.
# (The original has CRLF line ends; they are kept.)
set -eu
cd "$(dirname "$0")"
cp orig/threadring.java-7.java threadring.java
sed -i \
  -e 's/static final int THREAD_COUNT = 503;/static int THREAD_COUNT = 503; \/\/ ringbench: set from args[1]/' \
  -e 's/^\( *\)threadring first = new threadring(1);/\1THREAD_COUNT = Integer.parseInt(args[1]); \/\/ ringbench\r\n&/' \
  -e 's/^\( *\)first.waiting = false;/&\r\n\1LockSupport.unpark(first); \/\/ ringbench: start-up fix, see README/' \
  threadring.java
grep -q 'LockSupport.unpark(first); // ringbench' threadring.java
grep -q 'THREAD_COUNT = Integer.parseInt(args\[1\])' threadring.java
