// Written here for ringbench: the declarations the benchmark imports from upstream's package
// benchmarks.akka (files that need Akka): the message classes and CORES_COUNT, which main sets
// to the ring size N (upstream: val CORES_COUNT = Runtime.getRuntime().availableProcessors()).
package benchmarks.akka

var CORES_COUNT = Runtime.getRuntime().availableProcessors()

data class Ball(val count: Int)
class Start
class Stop
