package ringbench.pekko;

import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ActorRefFactory;
import org.apache.pekko.actor.Props;
import org.apache.pekko.actor.UntypedAbstractActor;
import ringbench.pekko.Messages.AwaitEnd;
import ringbench.pekko.Messages.Cover;
import ringbench.pekko.Messages.Sum;

/**
 * A tree process. Every node is made from one shared {@link #PROPS} and learns its leaves from its first
 * message, a {@link Cover} (skynet's Start): a leaf tells its parent its ordinal and stops; an inner node
 * spawns fanout children with {@code getContext().actorOf}, tells each its equal contiguous part, adds the
 * sums they tell it in whatever order they come, tells its parent the total and stops. The root (covered
 * by main) answers main's {@link AwaitEnd} ask with the total, whichever of the two comes first, and stays
 * until main stops it (gracefulStop, whose reply Pekko sends once every descendant has terminated).
 *
 * <p>An {@link UntypedAbstractActor}: {@code onReceive(Object)}, Pekko's classic Java API, builds no
 * {@code receiveBuilder} chain a node; with one Props for all and the range by message, a node allocates
 * within 24 B of skynet's Scala node (drivers/pekko/README.md, the workloads' paragraph).
 */
final class TreeNode extends UntypedAbstractActor {
    static final Props PROPS = Props.create(TreeNode.class, TreeNode::new);

    private int fanout, got;
    private boolean root, done; // the root's: its total is known
    private ActorRef asker;     // the root's: main's ask
    private long sum;

    /** Main's: spawn the root of a tree of n leaves under {@code factory} and tell it its leaves. */
    static ActorRef root(ActorRefFactory factory, int n, int fanout) {
        ActorRef root = factory.actorOf(PROPS);
        root.tell(new Cover(0, n, fanout, true), ActorRef.noSender());
        return root;
    }

    @Override
    public void onReceive(Object message) {
        if (message instanceof Sum s) {
            sum += s.value();
            if (++got == fanout) report(sum);
        } else if (message instanceof Cover c) {
            root = c.root();
            fanout = c.fanout();
            if (c.size() == 1) {
                report(c.lo());
                return;
            }
            final int part = c.size() / fanout;
            final ActorRef self = getSelf();
            for (int i = 0; i < fanout; i++) {
                getContext().actorOf(PROPS).tell(new Cover(c.lo() + i * part, part, fanout, false), self);
            }
        } else if (message instanceof AwaitEnd) {
            asker = getSender();
            if (done) asker.tell(new Sum(sum), getSelf());
        } else {
            unhandled(message);
        }
    }

    private void report(long value) {
        if (!root) {
            getContext().getParent().tell(new Sum(value), getSelf());
            getContext().stop(getSelf());
            return;
        }
        sum = value;
        done = true;
        if (asker != null) asker.tell(new Sum(value), getSelf());
    }
}
