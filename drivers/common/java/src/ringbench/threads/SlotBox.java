package ringbench.threads;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * The hand-off (variant {@code handoff}): no queue and no message object. One
 * value slot per process; a hop writes the value into the next process's slot
 * and unparks that process, which takes the value from its own slot or parks
 * until one comes: the idiom of the Benchmarks Game Java thread-ring program,
 * which passes one token. Several tokens can meet, so a writer that finds the
 * slot still full announces itself and parks; the owner wakes it after taking
 * the value. A slot has at most two writers at a time, its ring predecessor
 * (forward) and the main thread (put), each with its own announcement, so a
 * process's slot suits the ring, trace, spawn and pingpong; boxes with many
 * writers (the main thread's, fanin's receiver, a tree node's) stay mailboxes.
 */
final class SlotBox extends Box {
    private static final long EMPTY = Long.MIN_VALUE; // never sent: values are > -2^62
    private static final VarHandle VALUE, WAIT_FWD, WAIT_PUT;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            VALUE = l.findVarHandle(SlotBox.class, "value", long.class);
            WAIT_FWD = l.findVarHandle(SlotBox.class, "waitFwd", Thread.class);
            WAIT_PUT = l.findVarHandle(SlotBox.class, "waitPut", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile long value = EMPTY;
    private volatile Thread owner;               // set by the owner in bind(), before its first take
    private volatile Thread waitFwd, waitPut;    // a writer waiting for the slot to empty

    private void write(long v, boolean fwd) {
        if (!VALUE.compareAndSet(this, EMPTY, v)) full(v, fwd);
        // Before bind() the owner is not known; it looks at its slot after
        // announcing itself (bind) and before it first parks.
        Thread o = owner;
        if (o != null) LockSupport.unpark(o);
    }

    /** The slot is full (several tokens): announce this writer, retry, park until woken. */
    private void full(long v, boolean fwd) {
        Thread me = Thread.currentThread();
        for (;;) {
            if (fwd) waitFwd = me;
            else waitPut = me;
            if (VALUE.compareAndSet(this, EMPTY, v)) return;
            LockSupport.park(this);
            if (Thread.interrupted()) throw new Ended(null); // release() (Box.Ended)
        }
    }

    @Override
    void put(long v) { write(v, false); }

    @Override
    void forward(Box own, long v) { write(v, true); }

    @Override
    void bind() { owner = Thread.currentThread(); }

    @Override
    long take() {
        for (;;) {
            long v = value;
            if (v != EMPTY) {
                value = EMPTY; // only the owner empties the slot; writers only fill it
                if (waitFwd != null || waitPut != null) wakeWriters();
                return v;
            }
            LockSupport.park(this);
            if (Thread.interrupted()) throw new Ended(null); // release() (Box.Ended)
        }
    }

    private void wakeWriters() {
        Thread w = (Thread) WAIT_FWD.getAndSet(this, null);
        if (w != null) LockSupport.unpark(w);
        w = (Thread) WAIT_PUT.getAndSet(this, null);
        if (w != null) LockSupport.unpark(w);
    }
}
