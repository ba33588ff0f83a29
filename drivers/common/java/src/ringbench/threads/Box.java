package ringbench.threads;

/**
 * A process's receiving end. Messages are longs. Sending is asynchronous: a
 * send never waits for the receiver, except a hand-off slot's writer that finds
 * the slot still full.
 */
abstract sealed class Box permits ParkBox, QueueBox, SlotBox {
    /**
     * Called once by the owner before its first take, so that take itself need
     * not ask who is taking (the hand-off slot records its owner here).
     */
    void bind() {}

    /** Receive (blocks). Only the owner calls it, after bind(). */
    abstract long take();

    /** Send a new message (main, spawners, the tree's children). */
    abstract void put(long v);

    /**
     * Send from inside a process whose own box is {@code own}: the message cell
     * just freed by {@code own.take()} carries the value on, so a process that
     * forwards what it received allocates nothing.
     */
    abstract void forward(Box own, long v);

    /**
     * A process's thread was interrupted while it waited in a box: only {@code release()} does
     * that, to end a continuous ring under batch, so the wait itself is the only place that looks
     * (after a park, or inside the JDK queue's own wait), never a hop that finds its message.
     * Anywhere else it surfaces as the run's failure.
     */
    static final class Ended extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Ended(Throwable cause) { super("a process was interrupted", cause, false, false); }
    }
}
