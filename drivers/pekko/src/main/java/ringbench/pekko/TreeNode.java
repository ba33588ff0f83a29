package ringbench.pekko;

import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.Props;
import ringbench.pekko.Messages.AwaitEnd;
import ringbench.pekko.Messages.Sum;

/**
 * A tree process covering the leaves lo … lo+size-1. A leaf tells its parent its
 * ordinal and stops; an inner node spawns fanout children (its own, with
 * {@code getContext().actorOf}) over equal contiguous parts of its range, adds
 * the sums they tell it in whatever order they come, tells its parent the total
 * and stops. The root (no parent) answers main's {@link AwaitEnd} ask with the total,
 * whichever of the two comes first, and stays until main stops it (gracefulStop,
 * whose reply Pekko sends once every descendant has terminated).
 */
final class TreeNode extends AbstractActor {
    private final int lo, size, fanout;
    private final ActorRef parent; // null for the root
    private ActorRef asker;        // the root's: main's ask
    private boolean done;          // the root's: its total is known
    private long sum;
    private int got;

    TreeNode(int lo, int size, int fanout, ActorRef parent) {
        this.lo = lo;
        this.size = size;
        this.fanout = fanout;
        this.parent = parent;
    }

    static Props props(int lo, int size, int fanout, ActorRef parent) {
        return Props.create(TreeNode.class, () -> new TreeNode(lo, size, fanout, parent));
    }

    @Override
    public void preStart() {
        if (size == 1) {
            report(lo);
            return;
        }
        final int part = size / fanout;
        final ActorRef self = getSelf();
        for (int i = 0; i < fanout; i++) getContext().actorOf(props(lo + i * part, part, fanout, self));
    }

    @Override
    public Receive createReceive() {
        return receiveBuilder()
                .match(Sum.class, s -> {
                    sum += s.value();
                    if (++got == fanout) report(sum);
                })
                .match(AwaitEnd.class, a -> {
                    asker = getSender();
                    if (done) asker.tell(new Sum(sum), getSelf());
                })
                .build();
    }

    private void report(long value) {
        if (parent != null) {
            parent.tell(new Sum(value), getSelf());
            getContext().stop(getSelf());
            return;
        }
        sum = value;
        done = true;
        if (asker != null) asker.tell(new Sum(value), getSelf());
    }
}
