#!/bin/sh
# The plain two-node Elixir ring (ring2.ex): run.sh N M K PLACEMENT CORES
#
# What Erlang distribution needs on one machine, kept to this run: a name
# service and a cookie. epmd (Erlang's own, unmodified) runs in the
# foreground as this script's child on a free loopback port (ERL_EPMD_PORT),
# so it is in the process group of the run and goes with it, and no epmd
# daemon outlives the run or meets another run's nodes; the cookie is a
# fresh random one in a private HOME's .erlang.cookie (mode 0400), where
# every node reads it, never on a command line. Both are removed on exit.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/elixir-two-node-ring.XXXXXX") || exit 1
epmd_pid=""
cleanup() {
    [ -n "$epmd_pid" ] && kill "$epmd_pid" 2>/dev/null && wait "$epmd_pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
# A free port: epmd exits at once when its port is taken; try another.
for _ in 1 2 3 4 5 6 7 8; do
    port=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom) % 40000 ))
    epmd -port "$port" -address 127.0.0.1 &
    epmd_pid=$!
    i=0
    while [ $i -lt 50 ] && kill -0 "$epmd_pid" 2>/dev/null && ! epmd -port "$port" -names >/dev/null 2>&1; do
        sleep 0.02; i=$((i + 1))
    done
    epmd -port "$port" -names >/dev/null 2>&1 && break
    kill "$epmd_pid" 2>/dev/null; wait "$epmd_pid" 2>/dev/null; epmd_pid=""
done
[ -n "$epmd_pid" ] || { echo "run.sh: could not start epmd on a free port" >&2; exit 1; }
export ERL_EPMD_PORT="$port" HOME="$tmp"
od -An -N24 -tx1 /dev/urandom | tr -d ' \n' > "$tmp/.erlang.cookie"
chmod 400 "$tmp/.erlang.cookie"
cores=$5
[ "$cores" = 1 ] && sched="+S 1:1" || sched=""
exec_erl_flags="$sched -start_epmd false -kernel inet_dist_use_interface {127,0,0,1}"
elixir --sname ring2_main --erl "$exec_erl_flags" -pa "$here" -e 'Ring2.main(System.argv())' \
    "$1" "$2" "$3" "$4" "$5"
