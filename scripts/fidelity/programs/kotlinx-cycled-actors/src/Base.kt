// Written here for ringbench: what the benchmark needs of its base class (upstream's
// benchmarks/ParametrizedDispatcherBase.kt, whose @Setup makes the dispatcher for JMH): a
// CoroutineScope whose context main sets, and the dispatcher's name.
package benchmarks

import kotlinx.coroutines.CoroutineScope
import kotlin.coroutines.CoroutineContext

abstract class ParametrizedDispatcherBase : CoroutineScope {
    abstract var dispatcher: String
    override lateinit var coroutineContext: CoroutineContext
}
