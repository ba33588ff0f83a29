#!/bin/sh
# Ports Savina's thread-ring for Akka (github.com/shamsimam/savina at 52e5469, MIT) to Pekko 1.7 into
# src/, one flat folder that pom.xml compiles. Four files of Savina are used, each checked against
# its SHA-256 at that commit: ThreadRingAkkaActorBenchmark.scala (the program; scripts/fidelity.py
# fetches it, the toml's `fetch`), and the pieces of Savina it needs, which this script fetches
# from the same commit: AkkaActor.scala (Savina's actor base class AkkaActor and AkkaActorState,
# its actor-system config and start/exit latch), ThreadRingConfig.java (-n/-r parsing and the
# messages) and Benchmark.java (the abstract class the program's benchmark extends).
# The change, nothing else:
#   - akka -> org.apache.pekko: the two imports of akka.actor, the config's root key `akka {`
#     (Pekko reads `pekko`), the mailbox class akka.dispatch.SingleConsumerOnlyUnboundedMailbox;
#   - Akka 2.3 -> Pekko: system.shutdown() (removed in Akka 2.5) -> system.terminate();
#   - Savina's runner (BenchmarkRunner, 12 timed iterations, on Habanero-Java's library) is not
#     used: main() does what the runner does for one iteration (benchmark.initialize(args) parses
#     -n N -r R; AkkaActorState.initialize(); runIteration()) and prints R + 1 + N, the messages
#     the ring's actors handle (R + 1 pings, counted down from R to 0, then N exit messages);
#     the import of BenchmarkRunner goes, and ThreadRingConfig.printArgs (never called now) gets
#     the runner's format string "%25s = %-10s \n" written out instead of BenchmarkRunner's constant.
# ModCountDownLatch.java (written here) stands in for hjlib's edu.rice.hj.runtime.util.ModCountDownLatch,
# which AkkaActor.scala imports and which is not on Maven Central (touched once per actor, not per hop).
# The dispatcher's size comes from Savina's own properties -Dactors.corePoolSize/-Dactors.maxPoolSize.
# Run: java -cp {dir}/target/classes:{dir}/lib/* edu.rice.habanero.benchmarks.threadring.ThreadRingAkkaActorBenchmark -n {n} -r {hops}
set -eu
cd "$(dirname "$0")"
raw=https://raw.githubusercontent.com/shamsimam/savina/52e546959a57670cdba7a88f0a030b53cfdb16d6/src/main
for f in scala/edu/rice/habanero/actors/AkkaActor.scala \
         java/edu/rice/habanero/benchmarks/threadring/ThreadRingConfig.java \
         java/edu/rice/habanero/benchmarks/Benchmark.java; do
    name=$(basename "$f")
    [ -s "orig/$name" ] && continue
    mkdir -p orig
    if ! curl -fsSL --max-time 30 -o "orig/$name.part" "$raw/$f"; then
        rm -f "orig/$name.part"
        echo "prepare.sh: cannot fetch $raw/$f; save github.com/shamsimam/savina/blob/52e546959a57670cdba7a88f0a030b53cfdb16d6/src/main/$f as $PWD/orig/$name and run prepare again" >&2
        exit 1
    fi
    mv "orig/$name.part" "orig/$name"
done
sha256sum -c --quiet <<'SUMS' || { echo "prepare.sh: orig/ is not Savina's text at 52e5469 (above)" >&2; exit 1; }
6f5216375b4df4c63bca3f31dda3beaef724b895981852b4114b2858db2eace4  orig/ThreadRingAkkaActorBenchmark.scala
133b78fff80fb6a8f8a59b7e2c8f90e52aeb657460a192c3e8024723bc0d4ea7  orig/AkkaActor.scala
bc1f2dc111f65c96babe7ef486b861667a748f9674f0486f0edb739bd4da374e  orig/ThreadRingConfig.java
eca7b38478205aa4cd7eb6a9cb72e712df3d840641c9ce250565d175b4eb65f9  orig/Benchmark.java
SUMS
rm -rf src
mkdir src
sed -e 's|^import akka\.actor\.{ActorRef, Props}$|import org.apache.pekko.actor.{ActorRef, Props}|' \
    -e 's|^import edu\.rice\.habanero\.benchmarks\.{Benchmark, BenchmarkRunner}$|import edu.rice.habanero.benchmarks.Benchmark|' \
    -e '/^    BenchmarkRunner\.runBenchmark(args, new ThreadRingAkkaActorBenchmark)$/c\
    val benchmark = new ThreadRingAkkaActorBenchmark\
    benchmark.initialize(args)\
    AkkaActorState.initialize()\
    benchmark.runIteration()\
    println(ThreadRingConfig.R.toLong + 1 + ThreadRingConfig.N)' \
    orig/ThreadRingAkkaActorBenchmark.scala > src/ThreadRingAkkaActorBenchmark.scala
sed -e 's|^import akka\.actor\.{Actor, ActorRef, ActorSystem}$|import org.apache.pekko.actor.{Actor, ActorRef, ActorSystem}|' \
    -e 's|^    akka {$|    pekko {|' \
    -e 's|"akka\.dispatch\.SingleConsumerOnlyUnboundedMailbox"|"org.apache.pekko.dispatch.SingleConsumerOnlyUnboundedMailbox"|' \
    -e 's|^      system\.shutdown()$|      system.terminate()|' \
    orig/AkkaActor.scala > src/AkkaActor.scala
sed -e '/^import edu\.rice\.habanero\.benchmarks\.BenchmarkRunner;$/d' \
    -e 's|BenchmarkRunner\.argOutputFormat|"%25s = %-10s \\n"|' \
    orig/ThreadRingConfig.java > src/ThreadRingConfig.java
cp orig/Benchmark.java src/Benchmark.java
cp ModCountDownLatch.java src/ModCountDownLatch.java
# The new lines, counted: 2 imports + main's 5 (the program), 5 (AkkaActor: import, `pekko {`, the
# mailbox twice, terminate), 3 printf lines (ThreadRingConfig; its import line is deleted); no akka left.
changed() { diff "orig/$1" "src/$1" | grep -c '^>' || true; }
if [ "$(changed ThreadRingAkkaActorBenchmark.scala)" != 7 ] || [ "$(changed AkkaActor.scala)" != 5 ] \
    || [ "$(changed ThreadRingConfig.java)" != 3 ] \
    || grep -n 'akka\.\|akka {\|BenchmarkRunner\|shutdown()' src/*.scala src/ThreadRingConfig.java; then
    echo "prepare.sh: the change did not apply to orig/ as expected" >&2
    exit 1
fi
