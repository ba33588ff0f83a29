package ringbench.threads;

/**
 * A monitor mailbox (comparison only): a linked queue under the box's own
 * lock; the consumer waits with Object.wait(), a producer wakes it with
 * notify(). The dequeued cell is kept as {@code free} and reused by the
 * consumer's next forward().
 */
final class MonitorBox extends Box {
    private Node head, tail;   // under the lock
    private boolean waiting;   // under the lock
    private Node free;         // consumer only

    MonitorBox() { free = new Node(0); }

    private synchronized void enqueue(Node n) {
        if (tail == null) head = n;
        else tail.next = n;
        tail = n;
        if (waiting) notify();
    }

    @Override
    void put(long v) { enqueue(new Node(v)); }

    @Override
    void forward(Box own, long v) {
        Node n;
        MonitorBox o = own instanceof MonitorBox b ? b : null;
        if (o == null || (n = o.free) == null) {
            n = new Node(v);
        } else {
            o.free = null;
            n.v = v;
        }
        enqueue(n);
    }

    @Override
    long take() {
        Node h;
        synchronized (this) {
            while ((h = head) == null) {
                waiting = true;
                try {
                    wait();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                } finally {
                    waiting = false;
                }
            }
            head = h.next;
            if (head == null) tail = null;
        }
        h.next = null;
        free = h;
        return h.v;
    }
}
