#!/bin/sh
# The 2007/2009 Erlang-vs-Stackless ring (program stackless-ring), run on PyPy's own stackless module
# instead of the greenlet port that stackless-ring puts beside it. Same text, same change: the
# reconstructed orig/ring.py of stackless-ring is copied here and changed by stackless-ring's own
# prepare.sh (xrange -> range, the per-hop and per-message prints become `pass`); no stackless.py is
# put in this folder, so `import stackless as SL` finds /usr/lib/pypy3.9/stackless.py.
# Needs stackless-ring prepared first in the same programs folder (`scripts/fidelity.py prepare`).
set -eu
cd "$(dirname "$0")"
if ! test -f ../stackless-ring/orig/ring.py || ! test -f ../stackless-ring/prepare.sh; then
    echo "prepare stackless-ring first: its reconstructed orig/ring.py is the source of this program" >&2
    exit 1
fi
mkdir -p orig
cp ../stackless-ring/orig/ring.py orig/ring.py
cp ../stackless-ring/prepare.sh change-2009.sh
sh change-2009.sh
rm -f stackless.py
! test -e stackless.py
