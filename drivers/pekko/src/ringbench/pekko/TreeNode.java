package ringbench.pekko;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.Props;
import ringbench.pekko.Messages.Sum;

/**
 * A tree process covering the leaves lo … lo+size-1. A leaf tells its parent its
 * ordinal and stops; an inner node spawns fanout children (its own, with
 * {@code getContext().actorOf}) over equal contiguous parts of its range, adds
 * the sums they tell it in whatever order they come, tells its parent the total
 * and stops. The root tells main through {@code result}; its postStop, which
 * Pekko runs once every descendant has terminated, counts {@code gone} down.
 */
final class TreeNode extends AbstractActor {
    private final int lo, size, fanout;
    private final ActorRef parent;                 // null for the root
    private final CompletableFuture<Long> result;  // the root's
    private final CountDownLatch gone;             // the root's
    private long sum;
    private int got;

    TreeNode(int lo, int size, int fanout, ActorRef parent, CompletableFuture<Long> result, CountDownLatch gone) {
        this.lo = lo;
        this.size = size;
        this.fanout = fanout;
        this.parent = parent;
        this.result = result;
        this.gone = gone;
    }

    static Props props(int lo, int size, int fanout, ActorRef parent, CompletableFuture<Long> result, CountDownLatch gone) {
        return Props.create(TreeNode.class, () -> new TreeNode(lo, size, fanout, parent, result, gone));
    }

    @Override
    public void preStart() {
        if (size == 1) {
            report(lo);
            return;
        }
        final int part = size / fanout;
        final ActorRef self = getSelf();
        for (int i = 0; i < fanout; i++) getContext().actorOf(props(lo + i * part, part, fanout, self, null, null));
    }

    @Override
    public Receive createReceive() {
        return receiveBuilder()
                .match(Sum.class, s -> {
                    sum += s.value();
                    if (++got == fanout) report(sum);
                })
                .build();
    }

    private void report(long value) {
        if (parent == null) result.complete(value);
        else parent.tell(new Sum(value), getSelf());
        getContext().stop(getSelf());
    }

    @Override
    public void postStop() {
        if (gone != null) gone.countDown();
    }
}
