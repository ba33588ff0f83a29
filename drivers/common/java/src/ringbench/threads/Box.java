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
}
