package ringbench.pekko;

import java.util.function.IntFunction;
import java.util.function.IntUnaryOperator;
import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.Props;
import ringbench.pekko.Messages.AwaitEnd;
import ringbench.pekko.Messages.Finished;
import ringbench.pekko.Messages.Link;
import ringbench.pekko.Messages.Prove;
import ringbench.pekko.Messages.Ready;
import ringbench.pekko.Messages.Spawn;
import ringbench.pekko.Messages.Spawned;
import ringbench.pekko.Messages.Sum;

/**
 * The coordinator of one iteration's processes, and their parent (an actor creates its children:
 * the Pekko way; main is not an actor and asks it). Asked to {@link Spawn}, it spawns them with
 * {@code getContext().actorOf} and tells each its successor or peer with a {@link Link}; each
 * linked process tells it {@link Ready}, and the one that completes the count makes it reply to
 * main, once (the gate, contract section 3). It counts the {@link Finished} tokens the same way
 * and answers main's {@link AwaitEnd}, sends the proof's {@link Prove} and relays its {@link Sum}.
 * Stopping it (main's gracefulStop) stops what is left of its children first.
 */
final class Parent extends AbstractActor {
    private final IntFunction<Props> child;
    private final IntUnaryOperator linkTo;
    private final ActorRef[] procs;
    private final long finishing;
    private ActorRef spawnTo, endTo, sumTo; // main's asks, each answered once
    private long ready, finished, ended;

    /**
     * @param processes how many children
     * @param finishing the {@link Finished} messages that end the message phase (0: none ends it)
     * @param child     the props of child i (ring and spawn share one Props: a child keeps its props)
     * @param linkTo    the index of the process child i is linked to, or -1 for none
     */
    Parent(int processes, long finishing, IntFunction<Props> child, IntUnaryOperator linkTo) {
        this.procs = new ActorRef[processes];
        this.finishing = finishing;
        this.child = child;
        this.linkTo = linkTo;
    }

    static Props props(int processes, long finishing, IntFunction<Props> child, IntUnaryOperator linkTo) {
        return Props.create(Parent.class, () -> new Parent(processes, finishing, child, linkTo));
    }

    @Override
    public Receive createReceive() {
        return receiveBuilder()
                .match(Ready.class, r -> {
                    if (++ready == procs.length) spawnTo.tell(new Spawned(procs, ready), getSelf());
                })
                .match(Finished.class, f -> {
                    ended += f.value();
                    if (++finished == finishing && endTo != null) endTo.tell(new Sum(ended), getSelf());
                })
                .match(Spawn.class, s -> spawn())
                .match(AwaitEnd.class, a -> {
                    endTo = getSender();
                    if (finished == finishing && finishing > 0) endTo.tell(new Sum(ended), getSelf());
                })
                .match(Prove.class, p -> {
                    sumTo = getSender();
                    procs[p.at()].tell(p.stop(), getSelf());
                })
                .match(Sum.class, s -> sumTo.tell(s, getSelf()))
                .build();
    }

    private void spawn() {
        spawnTo = getSender();
        final ActorRef self = getSelf();
        for (int i = 0; i < procs.length; i++) procs[i] = getContext().actorOf(child.apply(i));
        for (int i = 0; i < procs.length; i++) {
            int to = linkTo.applyAsInt(i);
            procs[i].tell(new Link(to < 0 ? null : procs[to]), self);
        }
    }
}
