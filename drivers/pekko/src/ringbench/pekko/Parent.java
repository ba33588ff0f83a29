package ringbench.pekko;

import java.util.function.IntFunction;
import java.util.function.IntUnaryOperator;
import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.Props;

/**
 * The parent of one iteration's processes (an actor creates its children: the
 * Pekko way; the main thread is not an actor). On start it spawns them with
 * {@code getContext().actorOf}, then tells each its successor or peer with a
 * {@link Messages.Link}. Stopping it stops what is left of them; its postStop,
 * which Pekko runs only once every child has terminated, tells main they are gone.
 */
final class Parent extends AbstractActor {
    private final Run run;
    private final IntFunction<Props> child;
    private final IntUnaryOperator linkTo;

    /**
     * @param child  the props of child i (ring and spawn share one Props: a child keeps its props)
     * @param linkTo the index of the process child i is linked to, or -1 for none
     */
    Parent(Run run, IntFunction<Props> child, IntUnaryOperator linkTo) {
        this.run = run;
        this.child = child;
        this.linkTo = linkTo;
    }

    static Props props(Run run, IntFunction<Props> child, IntUnaryOperator linkTo) {
        return Props.create(Parent.class, () -> new Parent(run, child, linkTo));
    }

    @Override
    public void preStart() {
        final ActorRef[] procs = run.procs;
        final ActorRef self = getSelf();
        for (int i = 0; i < procs.length; i++) procs[i] = getContext().actorOf(child.apply(i));
        for (int i = 0; i < procs.length; i++) {
            int to = linkTo.applyAsInt(i);
            procs[i].tell(new Messages.Link(to < 0 ? null : procs[to]), self);
        }
    }

    @Override
    public Receive createReceive() {
        return receiveBuilder().build(); // it only supervises
    }

    @Override
    public void postStop() {
        run.gone.countDown();
    }
}
