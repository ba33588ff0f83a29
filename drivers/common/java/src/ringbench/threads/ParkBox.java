package ringbench.threads;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * The mailbox: an intrusive multi-producer single-consumer linked queue
 * (Vyukov: producers swap the tail, then link the old tail) and
 * LockSupport.park/unpark of the consumer. A producer unparks only when the
 * consumer has announced itself as waiting; the announcement and the link are
 * both volatile, so one side always sees the other. The node the consumer frees
 * (the old stub) is kept as {@code free} and reused by the consumer's next
 * forward(): a token travelling the ring keeps one cell.
 */
final class ParkBox extends Box {
    private static final VarHandle TAIL, WAITER;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            TAIL = l.findVarHandle(ParkBox.class, "tail", Node.class);
            WAITER = l.findVarHandle(ParkBox.class, "waiter", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile Node tail;
    private Node head;                 // consumer only
    private Node free;                 // consumer only: a cell to send with
    private volatile Thread waiter;    // the consumer while it parks

    ParkBox() {
        Node stub = new Node(0);
        head = stub;
        tail = stub;
        free = new Node(0);            // so a process's first send allocates nothing either
    }

    private void enqueue(Node n) {
        Node prev = (Node) TAIL.getAndSet(this, n);
        prev.next = n;
        Thread w = waiter;
        if (w != null) LockSupport.unpark(w);
    }

    @Override
    void put(long v) { enqueue(new Node(v)); }

    @Override
    void forward(Box own, long v) {
        Node n;
        ParkBox o = own instanceof ParkBox b ? b : null; // a slot (handoff) forwards with a new cell
        if (o == null || (n = o.free) == null) {
            n = new Node(v);
        } else {
            o.free = null;
            n.v = v;
            n.next = null;
        }
        enqueue(n);
    }

    @Override
    long take() {
        Node h = head;
        Node nx = h.next;
        if (nx == null) {
            // The announcement must be volatile: it and the producer's link (also
            // volatile) are a Dekker pair, so one side sees the other.
            waiter = Thread.currentThread();
            while ((nx = h.next) == null) {
                LockSupport.park(this);
                if (Thread.interrupted()) throw new Ended(null); // release() (Box.Ended)
            }
            // The withdrawal needs no fence (a release store, a plain mov on x86,
            // instead of a volatile store's locked add): a producer that still
            // reads this thread only unparks it for nothing, leaving a permit that
            // makes one later park return at once, and every park here re-tests
            // its condition. It cannot hide the next announcement: this store
            // precedes that volatile store in program order, and a volatile read
            // that follows the announcement in the synchronization order cannot
            // return a write that happens-before the announcement (the
            // acquire/release/volatile modes of java.lang.invoke.VarHandle follow
            // C++11's memory model).
            WAITER.setRelease(this, null);
        }
        head = nx;          // nx is the new stub; its value is ours
        free = h;           // no producer touches h any more (it linked h.next before we got here)
        return nx.v;
    }
}
