#!/bin/sh
# Ports atemerev/skynet's Scala Akka program (scala/src/main/scala/Skynet.scala at b5829d7, checked
# by its SHA-256) to Pekko 1.7 into src/Skynet.scala, which pom.xml compiles. The change, nothing else:
#   - akka -> org.apache.pekko in its one import (the API it uses is the same in Pekko);
#   - the depth from the command line: Root's `Skynet.Start(7, 0)` (7 levels: 10^6 leaves) becomes
#     `Skynet.Start(levels, 0)`, levels = args(0).toInt, read in `object Root extends App` before
#     the run is started;
#   - one tree a process, as the other skynet programs and each side of a versus round: Run(3)
#     (three trees one after another in one ActorSystem, each timed) becomes Run(1).
# It still prints "Result: <sum> in <ms> ms." and ends with context.system.terminate(); the fanout
# (10) is the program's own constant. The default dispatcher is sized by -D pekko.* properties.
# Run: java -cp "{dir}/target/classes:{dir}/lib/*" Root LEVELS (LEVELS = digits of N: 7 for 10^6 leaves).
set -eu
cd "$(dirname "$0")"
echo "46ac52f5a8c1f9a2ceccf6fbdf86a3b93ef0f9572aaa625fefcd5a40f4910d9e  orig/Skynet.scala" | sha256sum -c --quiet \
    || { echo "prepare.sh: orig/Skynet.scala is not atemerev/skynet's text at b5829d7 (above)" >&2; exit 1; }
rm -rf src
mkdir src
sed -e 's|^import akka\.actor\.{ ActorSystem, Props, ActorRef, Actor }$|import org.apache.pekko.actor.{ ActorSystem, Props, ActorRef, Actor }|' \
    -e 's|^    context\.actorOf(Skynet\.props) ! Skynet\.Start(7, 0)$|    context.actorOf(Skynet.props) ! Skynet.Start(levels, 0)|' \
    -e '/^  ActorSystem("main")\.actorOf(Props\[Root\]) ! Run(3)$/c\
  val levels = args(0).toInt\
  ActorSystem("main").actorOf(Props[Root]) ! Run(1)' \
    orig/Skynet.scala > src/Skynet.scala
# The new lines, counted: the import, Start(levels, 0), `val levels` and Run(1); no akka left.
if [ "$(diff orig/Skynet.scala src/Skynet.scala | grep -c '^>')" != 4 ] || grep -n 'akka' src/Skynet.scala; then
    echo "prepare.sh: the change did not apply to orig/ as expected" >&2
    exit 1
fi
