#!/bin/sh
# Turns orig/VirtualThreads.java (atemerev/skynet, java/src/main/java) into VirtualThreads.java. The
# changes: skynetVirtual() takes the leaves and the fanout (the constants 1000000 and 10 in its
# `skynet(0L, 1000000, 10, executor)`) and is no longer private; run(), which times every strategy
# through the repository's Skynet/RxJava harness, and the constructor, which warms every strategy up
# for run(), are removed (Main never makes an instance). Nothing else: a virtual thread per
# task (Executors.newVirtualThreadPerTaskExecutor), every inner task submitting its children and
# summing their Future.get() in child order. Main.java (written here) calls it once with argv.
# Run: java -cp {dir} Main {n} {fanout}; prints the sum.
set -eu
cd "$(dirname "$0")"
sed -e '/^  public static void run() {$/,/^  }$/d' \
    -e '/^  public VirtualThreads() {$/,/^  }$/d' \
    -e 's|^  private static Long skynetVirtual() {$|  static Long skynetVirtual(int size, int div) {|' \
    -e '/^  static Long skynetVirtual(int size, int div) {$/,/^  }$/s|skynet(0L, 1000000, 10, executor)|skynet(0L, size, div, executor)|' \
    orig/VirtualThreads.java > VirtualThreads.java
grep -q 'skynet(0L, size, div, executor)' VirtualThreads.java && ! grep -q 'Skynet.time' VirtualThreads.java \
    || { echo "prepare.sh: the change did not apply to orig/" >&2; exit 1; }
