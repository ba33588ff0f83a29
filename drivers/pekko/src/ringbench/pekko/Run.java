package ringbench.pekko;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.apache.pekko.actor.ActorRef;

/**
 * What one iteration's actors tell the main thread, which is not an actor: the ready
 * signals, the finished tokens, the proof's sum and the end of the parent. The main thread
 * blocks on them (CountDownLatch.await, CompletableFuture.join): no busy waiting.
 */
final class Run {
    /** Counted down by each process once it is linked, just before it waits for its first message. */
    final CountDownLatch ready;
    /** Counted down once per finished token (ring, trace) or at the end of the message phase. */
    final CountDownLatch finished;
    /** The proof: the count the processes made. */
    final CompletableFuture<Long> sum = new CompletableFuture<>();
    /** Counted down by the parent's postStop, which Pekko runs once every child has terminated. */
    final CountDownLatch gone = new CountDownLatch(1);
    /** The processes, in order: written by the parent before it links them, read by main after ready. */
    final ActorRef[] procs;

    Run(int processes, long finishing) {
        ready = new CountDownLatch(processes);
        finished = new CountDownLatch((int) finishing);
        procs = new ActorRef[processes];
    }
}
