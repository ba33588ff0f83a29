package ringbench.kotlin

import kotlinx.coroutines.CompletableDeferred
import java.util.concurrent.atomic.AtomicLong

/**
 * The gate (contract section 3): each process counts itself just before its first receive; the
 * signal that completes the count wakes main, once; main awaits it. Tested under concurrency by
 * src/test/kotlin/ringbench/kotlin/ReadyTest.kt.
 */
internal class Ready(
    private val n: Long,
) {
    private val left = AtomicLong(n)
    private val all = CompletableDeferred<Unit>()

    fun signal() {
        if (left.decrementAndGet() == 0L) all.complete(Unit)
    }

    /** Suspends until the n-th signal; returns the signals counted (n). */
    suspend fun await(): Long {
        all.await()
        return n - left.get()
    }
}
