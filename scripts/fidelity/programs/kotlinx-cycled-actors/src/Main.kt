// Written here for ringbench (not upstream's): runs kotlinx.coroutines' CycledActorsBenchmark.cycledActors()
// once, without JMH, on the ring size and laps given on the command line, and prints its hops.
//
//   java -Dkotlinx.coroutines.scheduler.core.pool.size=CORES -cp target/classes:lib/* \
//       benchmarks.scheduler.actors.MainKt N M [scheduler|ftp_1]
//
// N actors in one cycle (upstream: CORES_COUNT, the CPU count); M laps (upstream: 1_000); the
// dispatcher named as upstream's @Param names it: "scheduler" = Dispatchers.Default (the default),
// "ftp_1" = newFixedThreadPoolContext(1, ..), one thread. The ball makes N*M + 1 hops (the first actor
// after the trailing one receives it M + 1 times, every other M times), then a Stop goes N - 1 hops.
package benchmarks.scheduler.actors

import benchmarks.akka.CORES_COUNT
import kotlinx.coroutines.DelicateCoroutinesApi
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.channels.SendChannel
import kotlinx.coroutines.newFixedThreadPoolContext
import kotlin.system.exitProcess

/** The laps: prepare.sh puts it where upstream's actors compare their receipts with 1_000. */
var LAPS = 1_000

/** The one declaration the benchmark imports from upstream's PingPongActorBenchmark.kt (which needs JMH): its Letter. */
class PingPongActorBenchmark {
    data class Letter(val message: Any?, val sender: SendChannel<Letter>)
}

@OptIn(DelicateCoroutinesApi::class)
fun main(args: Array<String>) {
    val n = args[0].toInt()
    val laps = args[1].toInt()
    val dispatcher = args.getOrElse(2) { "scheduler" }
    // With one actor nothing counts laps (only the non-trailing actors do): it would never stop.
    require(n >= 2) { "N must be at least 2" }
    CORES_COUNT = n
    LAPS = laps
    val benchmark = CycledActorsBenchmark()
    benchmark.dispatcher = dispatcher
    benchmark.coroutineContext = when (dispatcher) {
        "scheduler" -> Dispatchers.Default
        "ftp_1" -> newFixedThreadPoolContext(1, dispatcher)
        else -> error("unknown dispatcher $dispatcher (scheduler or ftp_1)")
    }
    benchmark.cycledActors()
    println("hops: ${n.toLong() * laps + 1}")
    exitProcess(0) // N - 2 actors stay suspended after the Stop has passed (upstream too): leave without them
}
