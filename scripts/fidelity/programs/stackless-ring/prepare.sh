#!/bin/sh
# The 2007/2009 Erlang-vs-Stackless ring, Python side (reconstructed: see README.md): orig/ring.py -> ring.py
# Changes: Python 2 -> 3 (xrange -> range: the only Python 2 construct in it), and the per-hop and
# per-message prints (": Proc", "> Proc", "+ sending Msg#") become `pass`. `import stackless as SL`
# finds stackless.py (a greenlet port of the Stackless API, written here) in this folder.
# Usage: python3 ring.py N M   (N >= 2: the original needs one loop tasklet before mloop)
set -eu
cd "$(dirname "$0")"
sed -e 's/xrange(/range(/g' \
    -e 's/^\( *\)print(": Proc/\1pass  # print(": Proc/' \
    -e 's/^\( *\)print("> Proc/\1pass  # print("> Proc/' \
    -e 's/^\( *\)print("+ sending/\1pass  # print("+ sending/' \
    orig/ring.py > ring.py
test "$(grep -c '^ *pass  # print(' ring.py)" = 3
! grep -q xrange ring.py
diff orig/ring.py ring.py || true
