#!/bin/sh
# Turns orig/skynet.go into main.go. The one change: the number of leaves from the first argument and
# the fanout from the second (defaults 1,000,000 and 10) instead of the constants in
# `go skynet(c, 0, 1000000, 10)`; the imports os and strconv for it. Nothing else: one unbuffered
# chan int per inner goroutine, `go` per child, the sum received in arrival order.
# Run: {dir}/skynet {n} {fanout}; prints "Result: <sum> in <ms> ms."
set -eu
cd "$(dirname "$0")"
sed -e 's|^import "time"$|import "time"\
import "os"\
import "strconv"|' \
    -e 's|^	go skynet(c, 0, 1000000, 10)$|	size, div := 1000000, 10\
	if len(os.Args) > 2 { size, _ = strconv.Atoi(os.Args[1]); div, _ = strconv.Atoi(os.Args[2]) }\
	go skynet(c, 0, size, div)|' \
    orig/skynet.go > main.go
grep -q '^	go skynet(c, 0, size, div)$' main.go && grep -q '^import "strconv"$' main.go \
    || { echo "prepare.sh: the change did not apply to orig/" >&2; exit 1; }
