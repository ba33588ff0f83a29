package ringbench.kotlin

import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Job
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import ringbench.driver.Meter
import ringbench.driver.Out
import ringbench.driver.Params
import ringbench.driver.Workloads
import java.util.concurrent.CountDownLatch
import java.util.concurrent.atomic.AtomicLong
import java.util.function.LongSupplier
import kotlin.concurrent.thread
import kotlin.coroutines.CoroutineContext

/** A process's receiving end: an unbounded Channel, so a send never suspends (a mailbox). */
private fun mailbox(): Channel<Long> = Channel(Channel.UNLIMITED)

/** A trace token is (v shl FROM_BITS) or (from + 1): the hops still to go, and who sent it. */
private const val FROM_BITS = 7
private const val FROM_MASK = (1L shl FROM_BITS) - 1

/**
 * A process of continuous mode: passes every token on; p0 (with [laps]) counts the laps. Under batch,
 * release ends p0 through its laps counter and cancels the others, which ends them when they next
 * suspend: nothing is added to a hop.
 */
private fun CoroutineScope.loopProc(
    processes: CoroutineContext,
    inbox: Channel<Long>,
    next: Channel<Long>,
    laps: AtomicLong?,
    gate: Gate,
) = launch(processes) {
    gate.arrive()
    while (true) {
        val v = inbox.receive()
        if (laps != null && laps.getAndIncrement() < 0) break // p0: release asked
        next.send(v)
    }
}

/**
 * The workloads with one coroutine per process, launched in [processes] (Dispatchers.Default,
 * or the event loop of the runBlocking that runs the main process). Each process receives on its
 * own Channel and sends to its successor's. The main process is the coroutine of runBlocking on
 * the main thread; runBlocking returns when every process it launched has ended.
 */
class CoroutineWorkloads(
    private val processes: CoroutineContext,
) : Workloads {
    // ------------------------------------------------------------------ ring

    /** A ring process: tokens are values v >= 1; the stop message is -(sum+1); main hears 0 per finished token. */
    private fun CoroutineScope.ringProc(
        inbox: Channel<Long>,
        next: Channel<Long>,
        stopTo: Channel<Long>,
        main: Channel<Long>,
        gate: Gate,
    ) = launch(processes) {
        gate.arrive()
        var count = 0L // this process's receipts, for the proof
        while (true) {
            val v = inbox.receive()
            if (v > 0) {
                count++
                if (v == 1L) main.send(0) else next.send(v - 1)
            } else {
                stopTo.send(v - count) // -(sum+1) - count = -(sum+count+1)
                return@launch
            }
        }
    }

    override fun ring(
        p: Params,
        meter: Meter,
    ): Long =
        runBlocking {
            val n = p.n()
            val value = n.toLong() * p.m()
            val gate = Gate(n.toLong())
            meter.spawnBegins()
            val main = mailbox()
            val inboxes = Array(n) { mailbox() }
            for (i in 0 until n) {
                val next = inboxes[if (i + 1 == n) 0 else i + 1]
                ringProc(inboxes[i], next, if (i + 1 == n) main else next, main, gate)
            }
            meter.spawnEnds(gate.await())

            meter.runBegins()
            for (j in 0 until p.tokens()) inboxes[p.entry(j)].send(value)
            repeat(p.tokens()) { main.receive() }
            meter.runEnds()

            inboxes[0].send(-1)
            -main.receive() - 1
        }

    /** Continuous mode: the ring's laps counter, its processes' Job and its runBlocking's thread, until [release]. */
    private var foreverLaps: AtomicLong? = null
    private var foreverRing: Job? = null
    private var forever: Thread? = null

    /**
     * Continuous mode: the ring runs under a runBlocking of its own thread (which then waits for
     * its processes, for ever); main returns once the tokens are in. p0 counts the laps. Under
     * batch, [release] ends it: p0, told through its laps counter, ends, and the processes' Job is
     * cancelled. Once p0 has ended no token passes it, so every other process runs out of tokens and
     * suspends, where its cancellation ends it; p0 ends so even if it never suspends (n = 1).
     */
    override fun ringForever(
        p: Params,
        meter: Meter,
    ): LongSupplier {
        val n = p.n()
        val laps = AtomicLong()
        val injected = CountDownLatch(1)
        foreverLaps = laps
        forever =
            thread(isDaemon = true, name = "ring") {
                runBlocking {
                    val ring = Job(coroutineContext[Job]) // a child: runBlocking waits for it
                    foreverRing = ring // read by release after injected.await()
                    val gate = Gate(n.toLong())
                    meter.spawnBegins()
                    val inboxes = Array(n) { mailbox() }
                    for (i in 0 until n) {
                        val next = inboxes[if (i + 1 == n) 0 else i + 1]
                        loopProc(processes + ring, inboxes[i], next, if (i == 0) laps else null, gate)
                    }
                    meter.spawnEnds(gate.await())
                    meter.runBegins()
                    for (j in 0 until p.tokens()) inboxes[p.entry(j)].send(1)
                    injected.countDown()
                }
            }
        injected.await()
        return LongSupplier { laps.get() * n }
    }

    /** Under batch, after a continuous line: end the ring (see [ringForever]) and wait for its thread. */
    override fun release() {
        val laps = foreverLaps ?: return
        laps.set(Long.MIN_VALUE / 2)
        foreverRing?.cancel()
        forever?.join()
        forever = null
        foreverRing = null
        foreverLaps = null
    }

    // ----------------------------------------------------------------- trace

    /** The ring with one token (v shl FROM_BITS) or (from + 1); each receipt prints its hop as it happens. */
    override fun trace(
        p: Params,
        meter: Meter,
        print: Boolean,
    ): Long =
        runBlocking {
            val n = p.n()
            val total = n.toLong() * p.m()
            val gate = Gate(n.toLong())
            meter.spawnBegins()
            val main = mailbox()
            val inboxes = Array(n) { mailbox() }
            for (i in 0 until n) {
                val inbox = inboxes[i]
                val next = inboxes[if (i + 1 == n) 0 else i + 1]
                val stopTo = if (i + 1 == n) main else next
                launch(processes) {
                    gate.arrive()
                    var count = 0L
                    while (true) {
                        val x = inbox.receive()
                        if (x < 0) {
                            stopTo.send(x - count)
                            break
                        }
                        val v = x ushr FROM_BITS
                        val from = (x and FROM_MASK) - 1
                        val hop = total - v + 1
                        count++
                        if (print) Out.hop(hop, (hop - 1) / n + 1, from, i.toLong())
                        if (v == 1L) main.send(0) else next.send(((v - 1) shl FROM_BITS) or (i + 1).toLong())
                    }
                }
            }
            meter.spawnEnds(gate.await())
            meter.runBegins()
            inboxes[0].send(total shl FROM_BITS) // from = -1
            main.receive()
            meter.runEnds()
            inboxes[0].send(-1)
            -main.receive() - 1
        }

    // ----------------------------------------------------------------- spawn

    /** n idle processes, each holding its Channel as a ring process does, suspended in its first receive. */
    override fun spawn(
        p: Params,
        meter: Meter,
    ): Long =
        runBlocking {
            val n = p.n()
            val gate = Gate(n.toLong())
            meter.spawnBegins()
            val inboxes = Array(n) { mailbox() }
            for (inbox in inboxes) {
                launch(processes) {
                    gate.arrive()
                    inbox.receive()
                }
            }
            val seen = gate.await()
            meter.spawnEnds(seen)
            for (inbox in inboxes) inbox.send(0) // release them; runBlocking waits for their ends
            seen
        }

    // -------------------------------------------------------------- pingpong

    override fun pingpong(
        p: Params,
        meter: Meter,
    ): Long =
        runBlocking {
            val m = p.m()
            val gate = Gate(2)
            meter.spawnBegins()
            val main = mailbox()
            val a = mailbox()
            val b = mailbox()
            launch(processes) {
                gate.arrive()
                a.receive() // start
                for (i in 0 until m) {
                    b.send(1)
                    a.receive()
                }
                main.send(0)
                b.send(-1)
            }
            launch(processes) {
                gate.arrive()
                var c = 0L
                while (b.receive() > 0) {
                    c++
                    a.send(1)
                }
                main.send(-(c + 1))
            }
            meter.spawnEnds(gate.await())
            meter.runBegins()
            a.send(1)
            main.receive()
            meter.runEnds()
            -main.receive() - 1
        }

    // ----------------------------------------------------------------- fanin

    /** n senders wait for the start (a CompletableDeferred), then send m messages each and a 0; one receiver. */
    override fun fanin(
        p: Params,
        meter: Meter,
    ): Long =
        runBlocking {
            val n = p.n()
            val m = p.m()
            val gate = Gate(n + 1L)
            val go = CompletableDeferred<Unit>()
            meter.spawnBegins()
            val main = mailbox()
            val rx = mailbox()
            launch(processes) {
                gate.arrive()
                var got = 0L
                var done = 0
                while (done < n) {
                    if (rx.receive() > 0) got++ else done++
                }
                main.send(-(got + 1))
            }
            repeat(n) {
                launch(processes) {
                    gate.arrive()
                    go.await() // the start signal is this sender's first receive
                    var left = m
                    while (left-- > 0) rx.send(1)
                    rx.send(0) // this sender is done
                }
            }
            meter.spawnEnds(gate.await())
            meter.runBegins()
            go.complete(Unit)
            val got = -main.receive() - 1
            meter.runEnds()
            got
        }

    // ------------------------------------------------------------------ tree

    /**
     * A tree process over the leaves lo until lo+size: a leaf sends its ordinal to its parent; an
     * inner node makes its Channel, launches fanout children over equal contiguous parts, receives
     * one sum from each (in whatever order they come) and sends the total.
     */
    private fun CoroutineScope.node(
        lo: Long,
        size: Long,
        fanout: Int,
        parent: Channel<Long>,
    ) {
        launch(processes) {
            if (size == 1L) {
                parent.send(lo)
                return@launch
            }
            val own = mailbox()
            val part = size / fanout
            for (i in 0 until fanout) node(lo + i * part, part, fanout, own)
            var sum = 0L
            repeat(fanout) { sum += own.receive() }
            parent.send(sum)
        }
    }

    override fun tree(
        p: Params,
        meter: Meter,
    ): Long =
        runBlocking {
            val main = mailbox()
            meter.treeBegins()
            node(0, p.n().toLong(), p.fanout(), main)
            val sum = main.receive()
            meter.treeEnds()
            sum
        }
}
