package ringbench.pekko;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The gate of a spawn phase (contract section 3): each actor adds its arrival to one counter when it has
 * been linked and is about to wait for its first message, and the arrival that completes the count opens
 * the gate once: it unparks the main thread that made the gate, or (a node's agent across nodes) runs one
 * action. No message per actor: the coordinator takes none of the n arrivals in its mailbox. The form of
 * the Java family's gate (drivers/common/java, {@code ringbench.threads.Gate}, package-private there),
 * with an arrival of a count (a node agent's, through the coordinator) and the action form.
 */
final class Gate {
    private final AtomicLong seen = new AtomicLong();
    private final long wanted;
    private final Runnable open; // null: unpark the waiter
    private final Thread waiter;

    /** A gate the thread that makes it waits at ({@link #await}). */
    Gate(long wanted) {
        this.wanted = wanted;
        this.open = null;
        this.waiter = Thread.currentThread();
    }

    /** A gate whose completing arrival runs {@code open}, on the arriving actor's thread. */
    Gate(long wanted, Runnable open) {
        this.wanted = wanted;
        this.open = open;
        this.waiter = null;
    }

    void arrive() { arrive(1); }

    /** {@code count} arrivals at once; the one that reaches {@code wanted} opens the gate, once. */
    void arrive(long count) {
        long now = seen.addAndGet(count);
        if (now >= wanted && now - count < wanted) {
            if (open != null) open.run();
            else LockSupport.unpark(waiter);
        }
    }

    /** Main: parked until every arrival has been counted; the count seen (the result's {@code ready}). */
    long await() {
        long s;
        while ((s = seen.get()) < wanted) LockSupport.park(this);
        return s;
    }

    /** The arrivals counted so far. */
    long seen() { return seen.get(); }
}
