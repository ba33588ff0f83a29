#!/bin/sh
# orig/threadring.java-3.java -> threadring.java: the ring size from argv[1]
# instead of the constant 503 (argv[0] stays the hop count); nothing else.
set -eu
cd "$(dirname "$0")"
cp orig/threadring.java-3.java threadring.java
sed -i \
  -e 's/static final int THREAD_COUNT = 503;/static int THREAD_COUNT = 503; \/\/ ringbench: set from args[1]/' \
  -e 's/^\( *\)int hopCount = Integer.parseInt(args\[0\]);/&\n\1THREAD_COUNT = Integer.parseInt(args[1]); \/\/ ringbench/' \
  threadring.java
grep -q 'THREAD_COUNT = Integer.parseInt(args\[1\])' threadring.java
