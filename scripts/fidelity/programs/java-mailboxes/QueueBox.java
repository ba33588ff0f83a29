package ringbench.threads;

import java.util.concurrent.BlockingQueue;

/**
 * A java.util.concurrent BlockingQueue as mailbox (comparison only):
 * LinkedTransferQueue, LinkedBlockingQueue, ArrayBlockingQueue(1) or
 * SynchronousQueue. A boxed Long per message; the last two block the sender
 * and so deadlock a ring whose tokens meet.
 */
final class QueueBox extends Box {
    private final BlockingQueue<Long> q;

    QueueBox(BlockingQueue<Long> q) { this.q = q; }

    @Override
    void put(long v) {
        try {
            q.put(v);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    void forward(Box own, long v) { put(v); }

    @Override
    long take() {
        try {
            return q.take();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
