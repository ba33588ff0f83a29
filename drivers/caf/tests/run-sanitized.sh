#!/usr/bin/env bash
# Every workload of every variant, on small sizes and on one and two scheduler threads, under the
# AddressSanitizer + UndefinedBehaviorSanitizer build of the driver (ctest). A report is
# fatal (exit 66); a count the actors cannot prove is the driver's own `failure`.
set -euo pipefail
bin=$1
# the check's result: every node a run started has ended with it (no peer left behind)
peers_before=$(pgrep -cf -- "--caf-peer" || true)
export ASAN_OPTIONS=halt_on_error=1:exitcode=66:detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:exitcode=66:print_stacktrace=1
run() {
    if ! out=$("$bin" "$@" 2>&1); then
        echo "run-sanitized: FAILED: $* :"; echo "$out" | tail -40; exit 1
    fi
}
for v in stock tuned; do
    for c in 1 2; do
        run --variant=$v run ring n=20 m=50 cores=$c
        run --variant=$v run ring n=1 m=7 cores=$c
        run --variant=$v run ring n=20 m=20 tokens=5 cores=$c
        run --variant=$v run ring n=20 m=20 tokens=7 burst=1 repeats=2 warmup=1 stats=1 cores=$c
        run --variant=$v run ring n=20 sample_ms=50 samples=2 cores=$c
        run --variant=$v run trace n=3 m=2 cores=$c
        run --variant=$v run spawn n=500 repeats=2 cores=$c
        run --variant=$v run pingpong m=2000 cores=$c
        run --variant=$v run fanin n=8 m=500 cores=$c
        run --variant=$v run selective n=30 m=3 reverse=0 cores=$c
        run --variant=$v run selective n=30 m=3 reverse=1 repeats=2 cores=$c
        run --variant=$v run tree n=100 cores=$c
        run --variant=$v run tree n=64 fanout=2 repeats=2 cores=$c
        run --variant=$v run tree n=1 cores=$c
        # the ring across nodes (nodes.cpp): peers of the same build, their stdout the driver's
        run --variant=$v run ring n=20 m=20 nodes=2 cores=$c
        run --variant=$v run ring n=20 m=5 tokens=3 burst=1 nodes=2 node_placement=1 repeats=2 warmup=1 stats=1 cores=$c
        run --variant=$v run ring n=20 sample_ms=50 samples=2 nodes=2 stats=1 cores=$c
        run --variant=$v run ring n=20 sample_ms=50 samples=2 stats=1 cores=$c
        run --variant=$v run trace n=3 m=2 nodes=2 node_placement=1 repeats=2 warmup=1 cores=$c
    done
done
# three nodes, each pair connected (stock only: tuned's workers never sleep, and three spinning
# processes on a 2-CPU machine make the check slow without testing anything more)
run run ring n=7 m=13 tokens=3 nodes=3 cores=1
run run ring n=9 m=2 nodes=3 node_placement=1 repeats=2 cores=2
# nodes on other hosts (--hosts), here on loopback: two nodes started as a user starts them
# (--caf-node, TLS with CAF's OpenSSL module), a ring over them, then a certificate their CA did
# not sign and a node that is not there: bad_param (exit 2), the passphrase in no message
if command -v openssl >/dev/null; then
    tls=$(mktemp -d); nodes=()
    trap 'kill "${nodes[@]}" 2>/dev/null; rm -rf "$tls"' EXIT
    ssl() { openssl "$@" >/dev/null 2>&1 || { echo "run-sanitized: FAILED: openssl $1"; exit 1; }; }
    ssl req -x509 -newkey rsa:2048 -nodes -keyout "$tls/ca.key" -out "$tls/ca.pem" -days 2 -subj /CN=ca
    ssl req -x509 -newkey rsa:2048 -nodes -keyout "$tls/rogue.key" -out "$tls/rogue.pem" -days 2 -subj /CN=rogue
    for h in h0 h1 h2; do
        ssl req -newkey rsa:2048 -keyout "$tls/$h.key" -passout pass:sEcReT-$h -out "$tls/$h.csr" -subj /CN=$h
        ssl x509 -req -in "$tls/$h.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca.key" -CAcreateserial -out "$tls/$h.pem" -days 2
        printf '[openssl]\ncertificate="%s"\nkey="%s"\npassphrase="sEcReT-%s"\ncafile="%s"\n' \
            "$tls/$h.pem" "$tls/$h.key" "$h" "$tls/ca.pem" > "$tls/$h.ini"
    done
    printf '[openssl]\ncertificate="%s"\nkey="%s"\ncafile="%s"\n' "$tls/rogue.pem" "$tls/rogue.key" \
        "$tls/rogue.pem" > "$tls/rogue.ini"
    chmod 600 "$tls"/*.ini
    hosts=""
    for h in h1 h2; do
        "$bin" --caf-node --tls="$tls/$h.ini" --port=0 --bind=127.0.0.1 --name=$h --cores=1 2> "$tls/$h.err" &
        nodes+=($!)
        for _ in $(seq 100); do grep -q "serves rings" "$tls/$h.err" && break; sleep 0.1; done
        port=$(sed -n 's/.*on 127.0.0.1:\([0-9]*\) .*/\1/p' "$tls/$h.err")
        [ -n "$port" ] || { echo "run-sanitized: FAILED: node $h did not start:"; cat "$tls/$h.err"; exit 1; }
        hosts="$hosts${hosts:+,}$h@127.0.0.1:$port"
    done
    printf 'hosts=%s\ncookie=unused\n' "$hosts" > "$tls/cluster"
    export RINGBENCH_CLUSTER="$tls/cluster" CAF_TLS_SETTINGS="$tls/h0.ini"
    run run ring n=9 m=4 nodes=3 node_placement=1 repeats=2 stats=1 cores=1
    run run ring n=20 m=3 tokens=2 nodes=3 cores=2
    for bad in rogue down; do
        [ $bad = rogue ] && export CAF_TLS_SETTINGS="$tls/rogue.ini"
        [ $bad = down ] && printf 'hosts=x@127.0.0.1:1\ncookie=unused\n' > "$tls/cluster"
        rc=0; out=$("$bin" run ring n=9 m=4 nodes=$([ $bad = down ] && echo 2 || echo 3) 2>&1) || rc=$?
        if [ $rc -ne 2 ] || ! grep -q '"bad_param"' <<<"$out" || grep -q sEcReT <<<"$out"; then
            echo "run-sanitized: FAILED: a $bad node: exit $rc:"; echo "$out"; exit 1
        fi
    done
    unset RINGBENCH_CLUSTER CAF_TLS_SETTINGS
    grep -h "ERROR\|runtime error" "$tls"/h*.err && { echo "run-sanitized: FAILED: a node's sanitizer"; exit 1; }
fi
peers_after=$(pgrep -cf -- "--caf-peer" || true)
if [ "$peers_after" -gt "$peers_before" ]; then
    echo "run-sanitized: FAILED: $((peers_after - peers_before)) peer node(s) outlived their driver"; exit 1
fi
echo "run-sanitized: every workload of every variant passed"
