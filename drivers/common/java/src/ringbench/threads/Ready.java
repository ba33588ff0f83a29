package ringbench.threads;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The ready signals of a spawn phase: each process calls signal() immediately
 * before its first blocking receive; the main thread waits in await() until it
 * has seen them all and reports the count it saw.
 */
final class Ready {
    private final AtomicLong seen = new AtomicLong();
    private final long wanted;
    private final Thread waiter = Thread.currentThread();

    Ready(long wanted) { this.wanted = wanted; }

    void signal() {
        if (seen.incrementAndGet() == wanted) LockSupport.unpark(waiter);
    }

    long await() {
        long s;
        while ((s = seen.get()) < wanted) LockSupport.park(this);
        return s;
    }
}
