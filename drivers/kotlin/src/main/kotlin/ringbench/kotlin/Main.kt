package ringbench.kotlin

import kotlinx.coroutines.Dispatchers
import ringbench.driver.Description
import ringbench.driver.Driver
import ringbench.driver.Params
import ringbench.driver.Workloads
import kotlin.coroutines.CoroutineContext
import kotlin.coroutines.EmptyCoroutineContext

/** Why `selective` is unsupported: a Channel gives its head only. */
const val NO_SELECTIVE =
    "kotlinx.coroutines has no selective receive: a Channel's receive takes its head only, and " +
        "select chooses among channels, not among the messages waiting in one, so a receive that skips non-matching " +
        "messages would be a hand-written emulation, not the runtime's own"

private val VARIANTS = listOf("stock", "single-thread", "tuned")

private fun version(): String {
    val coroutines = Dispatchers::class.java.`package`?.implementationVersion ?: "?"
    return "Kotlin ${KotlinVersion.CURRENT}, kotlinx.coroutines $coroutines, JVM ${Runtime.version()}"
}

/** The context processes are launched in: Dispatchers.Default, or runBlocking's own event loop. */
private fun prepare(
    variant: String,
    p: Params,
): Workloads {
    val processes: CoroutineContext =
        if (variant == "single-thread") {
            EmptyCoroutineContext // inherit the event loop of runBlocking on the main thread
        } else {
            // Dispatchers.Default reads its size once, when first used (after this): the contract's cores.
            System.setProperty("kotlinx.coroutines.scheduler.core.pool.size", p.cores().toString())
            Dispatchers.Default
        }
    return CoroutineWorkloads(processes)
}

fun main(args: Array<String>) {
    Driver.serve(
        args,
        Description(
            "kotlin",
            "Kotlin",
            version(),
            Description.STANDARD,
            Description.ALL_FEATURES,
            VARIANTS,
            false,
            NO_SELECTIVE,
        ),
        ::prepare,
    )
}
