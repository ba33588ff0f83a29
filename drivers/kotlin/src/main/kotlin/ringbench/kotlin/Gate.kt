package ringbench.kotlin

import kotlinx.coroutines.CompletableDeferred
import java.util.concurrent.atomic.AtomicLong

/**
 * The gate (contract section 3): each process arrives (counts itself) just before its first
 * receive; the arrival that completes the count wakes main, once; main awaits it. Tested under
 * concurrency by src/test/kotlin/ringbench/kotlin/GateTest.kt.
 */
internal class Gate(
    private val n: Long,
) {
    private val left = AtomicLong(n)
    private val all = CompletableDeferred<Unit>()

    fun arrive() {
        if (left.decrementAndGet() == 0L) all.complete(Unit)
    }

    /** Suspends until the n-th arrival; returns the arrivals counted (n). */
    suspend fun await(): Long {
        all.await()
        return n - left.get()
    }
}
