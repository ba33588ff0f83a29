package ringbench.kotlin

import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeoutOrNull
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import java.util.concurrent.atomic.AtomicLong
import kotlin.coroutines.CoroutineContext
import kotlin.coroutines.EmptyCoroutineContext

/**
 * The gate under concurrency, on both schedulers the driver runs (Dispatchers.Default's threads,
 * runBlocking's event loop): main wakes only after every process has arrived, exactly once, with
 * the count n; never while one is missing. A lost wake-up fails by the class's timeout.
 */
@Timeout(120)
class GateTest {
    /** n processes arrive, then suspend in a receive as a ring process does; main awaits the gate. */
    private fun round(
        n: Int,
        context: CoroutineContext,
    ) = runBlocking {
        val gate = Gate(n.toLong())
        val arrived = AtomicLong()
        val inboxes = Array(n) { Channel<Long>(Channel.UNLIMITED) }
        for (i in 0 until n) {
            launch(context) {
                arrived.incrementAndGet()
                gate.arrive()
                inboxes[i].receive()
            }
        }
        assertEquals(n.toLong(), gate.await())
        assertEquals(n.toLong(), arrived.get(), "main woke before every process had arrived")
        assertEquals(n.toLong(), gate.await(), "a second await sees the same count")
        for (inbox in inboxes) inbox.send(0)
    }

    @Test
    fun everyArrivalCountsOnManyThreads() {
        for (r in 0 until 300) round(1 + r * 37 % 2000, Dispatchers.Default)
        round(200_000, Dispatchers.Default)
    }

    @Test
    fun everyArrivalCountsOnTheEventLoop() {
        for (r in 0 until 100) round(1 + r * 37 % 2000, EmptyCoroutineContext)
    }

    @Test
    fun theGateStaysShutWhileOneIsMissing() =
        runBlocking {
            val n = 1000
            val gate = Gate(n.toLong())
            val jobs = (1 until n).map { launch(Dispatchers.Default) { gate.arrive() } }
            jobs.forEach { it.join() }
            assertNull(withTimeoutOrNull(200) { gate.await() })
            gate.arrive()
            assertEquals(n.toLong(), gate.await())
        }
}
