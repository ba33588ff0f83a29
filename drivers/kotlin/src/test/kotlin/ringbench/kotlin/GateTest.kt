package ringbench.kotlin

import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeoutOrNull
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import ringbench.driver.Meter
import ringbench.driver.Params
import ringbench.driver.Records
import ringbench.driver.Workload
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicLong
import java.util.concurrent.locks.LockSupport
import kotlin.concurrent.thread
import kotlin.coroutines.CoroutineContext
import kotlin.coroutines.EmptyCoroutineContext

private const val DELAY_NS = 200_000_000L
private const val PARK_NS = 200_000L
private val WORKLOADS = listOf(Workload.SPAWN, Workload.RING)

/**
 * Dispatchers.Default through a count of the blocks it runs, as CoroutineWorkloads' processes
 * context (the driver's own seam): the dispatch ordinal [late] (in the spawn phase, the start of
 * process [late]: nothing else is dispatched there) is handed on after 200 ms from a thread of its
 * own, so that process arrives at the gate that much later.
 */
private class Counted(
    private val late: Int,
) : CoroutineDispatcher() {
    val dispatched = AtomicInteger()
    val begun = AtomicInteger()
    val running = AtomicInteger()

    override fun dispatch(
        context: CoroutineContext,
        block: Runnable,
    ) {
        val counted =
            Runnable {
                begun.incrementAndGet()
                running.incrementAndGet()
                try {
                    block.run()
                } finally {
                    running.decrementAndGet()
                }
            }
        if (dispatched.getAndIncrement() == late) {
            thread(isDaemon = true) {
                Thread.sleep(DELAY_NS / 1_000_000)
                Dispatchers.Default.dispatch(context, counted)
            }
        } else {
            Dispatchers.Default.dispatch(context, counted)
        }
    }
}

/** The cases of [w] with [n] processes where the first or the last launched starts late. */
private fun lateOnes(
    w: Workload,
    n: Int,
) = setOf(0, n - 1).map { Triple(w, n, it) }

/** The counts as main was inside Meter.spawnEnds (seen there before and after they were read). */
private data class Look(
    val dispatched: Int,
    val begun: Int,
    val running: Int,
)

private val METER: String = Meter::class.java.name

private fun inSpawnEnds(main: Thread) = main.stackTrace.any { it.methodName == "spawnEnds" && it.className == METER }

/**
 * Until interrupted: the first look at [c] taken while main was inside Meter.spawnEnds. A correct
 * gate cannot wake main before all [n] processes have begun (the late one too); until then the
 * watcher looks every 0.2 ms instead of spinning (a spinning watcher took a core from the run it
 * watched), so a gate that wakes main early is still seen.
 */
private fun watch(
    main: Thread,
    c: Counted,
    n: Int,
): Look? {
    var found: Look? = null
    while (found == null && !Thread.currentThread().isInterrupted) {
        if (inSpawnEnds(main)) {
            val l = Look(c.dispatched.get(), c.begun.get(), c.running.get())
            if (inSpawnEnds(main)) found = l
        } else if (c.begun.get() < n) {
            LockSupport.parkNanos(PARK_NS)
        } else {
            Thread.onSpinWait()
        }
    }
    return found
}

/** One iteration of [w] with n processes on a [Counted] dispatcher: its result record and the look. */
private fun measure(
    w: Workload,
    n: Int,
    late: Int,
): Pair<Map<String, Long>, Look?> {
    val c = Counted(late)
    val p = Params.parse(w, if (w == Workload.RING) arrayOf("n=$n", "m=3") else arrayOf("n=$n"), 0)
    val meter = Meter(false)
    val main = Thread.currentThread()
    var look: Look? = null
    val watcher = thread(isDaemon = true) { look = watch(main, c, n) }
    val workloads = CoroutineWorkloads(c)
    val count = if (w == Workload.RING) workloads.ring(p, meter) else workloads.spawn(p, meter)
    watcher.interrupt()
    watcher.join()
    assertEquals(p.expected(), count)
    return Records.of(meter) to look
}

/**
 * Dispatchers.Default's threads: each may be carrying one process from its arrival at the gate to
 * its suspension in the receive when main wakes (the arrival that woke main, and one on each other
 * thread that arrived just before it; seen: 2 of 1,000 on 2 CPUs).
 */
private val CARRIERS = maxOf(2, Runtime.getRuntime().availableProcessors())

/**
 * As main woke from the gate every process had started (dispatched = begun = n: none waiting to
 * start) and at most one a thread was running (an arrival on its way to its receive): the rest
 * were suspended, and a process's only suspension before its first message is its receive.
 */
private fun assertAllInTheirReceive(
    what: String,
    n: Int,
    l: Look,
) {
    assertTrue(l.dispatched == n && l.begun == n && l.running <= CARRIERS, "$what: as main woke $l, n = $n")
}

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

    /**
     * The spawn boundary (contract section 3, issue 39) on Dispatchers.Default, through the Meter
     * and the record the driver prints: a process that starts 200 ms late (the first or the last
     * launched) makes setup_ns at least as long, and ready is n.
     */
    @Test
    fun aProcessLateToTheGateHoldsTheSpawnPhaseBack() {
        val cases = WORKLOADS.flatMap { w -> listOf(1, 2, 100).flatMap { n -> lateOnes(w, n) } }
        for ((w, n, late) in cases) {
            val what = "${w.id} n=$n, process $late 200 ms late"
            val (rec, look) = measure(w, n, late)
            val setup = rec.getValue("setup_ns")
            assertEquals(n.toLong(), rec.getValue("ready"), what)
            assertTrue(setup >= DELAY_NS, "$what: setup_ns $setup")
            look?.let { assertAllInTheirReceive(what, n, it) }
        }
    }

    /** As main wakes from the gate every process is suspended in its first receive (a look succeeds now and then). */
    @Test
    fun asMainWakesEveryProcessIsInItsFirstReceive() {
        var looks = 0
        var tries = 0
        val sizes = listOf(1, 2, 100, 1000)
        val cases = (0 until 5).flatMap { round -> WORKLOADS.flatMap { w -> sizes.map { Triple(round, w, it) } } }
        for ((round, w, n) in cases) {
            val (rec, look) = measure(w, n, -1)
            assertEquals(n.toLong(), rec.getValue("ready"), "${w.id} n=$n")
            tries++
            look?.let {
                looks++
                assertAllInTheirReceive("${w.id} n=$n, round $round", n, it)
            }
        }
        assertTrue(looks * 8 >= tries, "main seen inside spawnEnds in only $looks of $tries runs")
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
