#!/bin/sh
# Makes threadring.cpp from orig/savina_05_threadring.cpp. No change is needed: the program
# already reads the ring size (-n) and the pings (-r, its hop count) from its command line
# through CAF's own option parser; this copies it and checks both options are there.
# Run: {dir}/threadring -n {n} -r {hops} --scheduler.max-threads={cores}
set -eu
cd "$(dirname "$0")"
cp orig/savina_05_threadring.cpp threadring.cpp
grep -q '\.add(n, "nnn,n"' threadring.cpp && grep -q '\.add(r, "rrr,r"' threadring.cpp \
    || { echo "prepare.sh: orig/ is not the expected program (no -n/-r options)" >&2; exit 1; }
