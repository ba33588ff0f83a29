// A plain kotlinx.coroutines ring (written here for ringbench, not taken from anywhere): n
// coroutines launched on Dispatchers.Default from runBlocking, one Channel<Long>(UNLIMITED) each;
// coroutine i receives from its own channel and sends v - 1 into coroutine i+1's. One token
// carrying the number of hops left goes into channel 0; the coroutine that receives 1 completes
// a CompletableDeferred that main awaits, and main exits. n * m hops in all.
//
//   java -Dkotlinx.coroutines.scheduler.core.pool.size=CORES -cp classes:lib/* RingKt N M
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlin.system.exitProcess

fun main(args: Array<String>) {
    val n = args[0].toInt()
    val hops = n * args[1].toLong()
    runBlocking {
        val channels = Array(n) { Channel<Long>(Channel.UNLIMITED) }
        val done = CompletableDeferred<Unit>()
        for (i in 0 until n) {
            val inbox = channels[i]
            val next = channels[(i + 1) % n]
            launch(Dispatchers.Default) {
                while (true) {
                    val v = inbox.receive()
                    if (v == 1L) done.complete(Unit) else next.send(v - 1)
                }
            }
        }
        channels[0].send(hops)
        done.await()
        println("hops: $hops")
        exitProcess(0) // the ring's coroutines never end: leave without cancelling them
    }
}
