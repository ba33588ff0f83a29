package ringbench.threads;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The stock mailbox: the JDK's own {@link LinkedBlockingQueue}, unbounded, the
 * queue a Java programmer reaches for to hand work from one thread to another
 * (the work queue of {@code Executors.newFixedThreadPool}; the producer-consumer
 * example of the {@link BlockingQueue} documentation). The receiver waits in
 * {@code take()}; a sender calls {@code put()}, which never blocks on an
 * unbounded queue. Each hop allocates what the idiom allocates: a queue node
 * and, outside the {@code Long} cache (-128 … 127), a boxed {@code Long}.
 */
final class QueueBox extends Box {
    private final BlockingQueue<Long> queue = new LinkedBlockingQueue<>();

    @Override
    long take() {
        try {
            return queue.take();
        } catch (InterruptedException e) {
            throw new Ended(e); // release() ends a continuous ring so (Box.Ended); elsewhere a failure
        }
    }

    @Override
    void put(long v) {
        try {
            queue.put(v);
        } catch (InterruptedException e) {
            throw new Ended(e);
        }
    }

    /** The stock idiom has no cell to reuse: a send is a put. */
    @Override
    void forward(Box own, long v) { put(v); }
}
