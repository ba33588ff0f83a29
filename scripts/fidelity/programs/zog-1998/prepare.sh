#!/bin/sh
# zog.erl needs no change: start(N, M) already takes the ring size N and the number of messages M
# (the total hop count, not laps) as arguments; it is called with erl -eval 'zog:start(N, M)'.
# It prints nothing per hop (two lines at the end: setup and run time).
set -e
cd "$(dirname "$0")"
cp orig/zog.erl zog.erl
