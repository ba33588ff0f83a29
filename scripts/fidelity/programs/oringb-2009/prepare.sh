#!/bin/sh
# Turn the Erlang program of "Erlang vs. Stackless python: a first benchmark" into oringb.erl.
# 1. Repair: the stored text lost the pattern of mloop/1's second clause (a bare "->" line, a
#    syntax error); it is "0 ->" (message numbers are M-1 ... 0 and loop/2 rejects negatives).
# 2. Printing removed from the ring: the io:format line of every forwarded message (loop/2), of
#    every message the last process absorbs (mloop/1), and of every process that terminates
#    (loop/2, replaced by "ok" so the clause still ends in an expression). The first line
#    (">> Erlang R11B-5 here ...") and the final line ("@ ... ring terminated.") stay.
# Nothing else: N and M already come from the command line (main/1, erl -s oringb main N M).
set -e
cd "$(dirname "$0")"
sed -e 's/^->$/0 ->/' \
    -e '/^io:format(": Proc: ~8w, Seq#: ~w, Msg#: ~w \.\.~n", \[self(), S, R\]),$/d' \
    -e '/^io:format("> Proc: ~8w, Seq#: ~w, Msg#: ~w \.\.~n", \[self(), S, R\]),$/d' \
    -e 's/^io:format("\* Proc: ~8w, Seq#: ~w, Msg#: terminate!~n", \[self(), S\]);$/ok;/' \
    orig/oringb.erl > oringb.erl
test "$(grep -c 'io:format' oringb.erl)" = 2
grep -q '^0 ->$' oringb.erl
grep -q '^ok;$' oringb.erl
