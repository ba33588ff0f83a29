package ringbench.threads;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The gate of a spawn phase: each process calls arrive() immediately before its
 * first blocking receive; the main thread waits in await() until it has seen
 * every arrival and reports the count it saw.
 */
final class Gate {
    private final AtomicLong seen = new AtomicLong();
    private final long wanted;
    private final Thread waiter = Thread.currentThread();

    Gate(long wanted) { this.wanted = wanted; }

    void arrive() {
        if (seen.incrementAndGet() == wanted) LockSupport.unpark(waiter);
    }

    long await() {
        long s;
        while ((s = seen.get()) < wanted) LockSupport.park(this);
        return s;
    }
}
