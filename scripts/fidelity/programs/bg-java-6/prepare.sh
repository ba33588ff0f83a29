#!/bin/sh
# orig/threadring.java-6.java -> threadring.java: the ring size from argv[1]
# instead of the constant 503 (argv[0] stays the hop count); nothing else.
set -eu
cd "$(dirname "$0")"
cp orig/threadring.java-6.java threadring.java
sed -i -e 's/Node\[\] ring = new Node\[503\];/Node[] ring = new Node[Integer.parseInt(args[1])]; \/\/ ringbench: was 503/' threadring.java
grep -q 'new Node\[Integer.parseInt(args\[1\])\]' threadring.java
