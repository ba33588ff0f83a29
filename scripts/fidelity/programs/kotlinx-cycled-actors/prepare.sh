#!/bin/sh
# orig/CycledActorsBenchmark.kt -> src/CycledActorsBenchmark.kt: the JMH harness removed (its import,
# the six class annotations, the two @Param lines and @Benchmark: 10 lines deleted) and the laps
# from LAPS (set by src/Main.kt from argv) where the actors compared their receipts with the
# constant 1_000; nothing else. The ring size is the benchmark's CORES_COUNT, which src/Akka.kt
# declares and src/Main.kt sets from argv, so no line of the benchmark changes for it.
set -eu
cd "$(dirname "$0")"
in=orig/CycledActorsBenchmark.kt
out=src/CycledActorsBenchmark.kt
# The lines this changes, each exactly once, or orig/ is not the expected program.
for line in \
    'import org.openjdk.jmh.annotations.\*' \
    '@Warmup(iterations = 5, time = 1, timeUnit = TimeUnit.SECONDS)' \
    '@Measurement(iterations = 5, time = 1, timeUnit = TimeUnit.SECONDS)' \
    '@Fork(value = 1)' \
    '@BenchmarkMode(Mode.AverageTime)' \
    '@OutputTimeUnit(TimeUnit.MILLISECONDS)' \
    '@State(Scope.Benchmark)' \
    '    @Param("fjp", "ftp_1", "scheduler")' \
    '    @Param("1", "1024")' \
    '    @Benchmark' \
    '                    if (++received > 1_000) {'; do
    test "$(grep -c "^$line\$" "$in")" -eq 1 \
        || { echo "prepare.sh: $in is not the expected program (no single line '$line')" >&2; exit 1; }
done
test "$(grep -c '^ *@' "$in")" -eq 9 \
    || { echo "prepare.sh: $in has other annotations than the 9 JMH ones" >&2; exit 1; }
sed \
  -e '/^import org\.openjdk\.jmh\.annotations\.\*$/d' \
  -e '/^@\(Warmup\|Measurement\|Fork\|BenchmarkMode\|OutputTimeUnit\|State\)(.*)$/d' \
  -e '/^    @Param(.*)$/d' \
  -e '/^    @Benchmark$/d' \
  -e 's/^\( *if (++received > \)1_000) {$/\1LAPS) { \/\/ ringbench: was 1_000/' \
  "$in" > "$out"
test "$(grep -c '^ *@' "$out")" -eq 0
test "$(grep -c 'jmh' "$out")" -eq 0
test "$(grep -c '++received > LAPS) { // ringbench: was 1_000' "$out")" -eq 1
test "$(($(wc -l < "$in") - $(wc -l < "$out")))" -eq 10
