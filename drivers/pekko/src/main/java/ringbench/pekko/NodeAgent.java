package ringbench.pekko;

import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.Props;
import ringbench.pekko.Messages.Arrivals;
import ringbench.pekko.Messages.Finished;
import ringbench.pekko.Messages.Link;
import ringbench.pekko.Messages.LinkOn;
import ringbench.pekko.Messages.SpawnOn;
import ringbench.pekko.Messages.SpawnedOn;
import ringbench.pekko.Messages.Sum;

/**
 * One ring's processes on a peer node, and their local coordinator: the node's host makes one agent per
 * {@link SpawnOn} and forwards it, so the coordinator on node 0 (the sender) talks to the agent. The
 * agent spawns the node's block of processes as its children with {@code actorOf} and replies with their
 * references in chunks ({@link SpawnedOn}); asked to {@link LinkOn}, it links each to its successor
 * (a remote one, mostly) with a {@link Link} carrying the agent's own {@link Gate}, at which each arrives as
 * on node 0; the arrival that completes the node's count tells the coordinator once ({@link Arrivals}),
 * and the coordinator adds it to main's gate. Remote arrivals are a message per node, not a counter:
 * main's counter is in another JVM, which an actor here cannot touch. The agent relays their
 * {@link Finished} tokens and the proof's {@link Sum}. So the spawn phase sends a few large messages
 * between nodes, not one per process (Artery's send queue drops a burst beyond its size); the tokens go
 * from process to process, {@code tell} to a remote {@code ActorRef}. Stopping the agent (the
 * coordinator does when it stops) stops what is left of its processes.
 */
final class NodeAgent extends AbstractActor {
    private ActorRef boss; // the coordinator on node 0
    private ActorRef[] procs = new ActorRef[0];
    private int first, step;
    private Gate gate; // this node's processes' arrivals; its completing one tells the coordinator

    static Props props() {
        return Props.create(NodeAgent.class, NodeAgent::new);
    }

    @Override
    public Receive createReceive() {
        return receiveBuilder()
                .match(SpawnOn.class, this::spawn)
                .match(LinkOn.class, this::link)
                .match(Finished.class, f -> boss.tell(f, getSelf()))
                .match(Sum.class, s -> boss.tell(s, getSelf()))
                .build();
    }

    private void spawn(SpawnOn s) {
        boss = getSender();
        first = s.first();
        step = s.step();
        procs = new ActorRef[s.count()];
        final ActorRef to = boss, self = getSelf();
        final long count = procs.length;
        gate = new Gate(count, () -> to.tell(new Arrivals(count), self)); // on the completing actor's thread
        Props ring = RingActor.props(), loop = LoopActor.props(null);
        for (int x = 0; x < procs.length; x++) {
            int i = first + x * step;
            Props p = switch (s.kind()) {
                case RING -> ring;
                case TRACE -> TraceActor.props(i, s.n(), s.total(), s.print());
                // The node's lowest-indexed process counts the laps passing it (the cluster view).
                case LOOP -> x == 0 ? LoopActor.props(Nodes.LAPS) : loop;
            };
            procs[x] = getContext().actorOf(p);
        }
        for (int c = 0; c < procs.length; c += SpawnOn.CHUNK) {
            ActorRef[] chunk = java.util.Arrays.copyOfRange(procs, c, Math.min(procs.length, c + SpawnOn.CHUNK));
            boss.tell(new SpawnedOn(first + c * step, step, chunk), getSelf());
        }
    }

    private void link(LinkOn l) {
        int n = l.n();
        for (int x = 0; x < l.next().length; x++) {
            int i = l.first() + x * l.step(), pred = i == 0 ? n - 1 : i - 1;
            boolean fromOther = Nodes.nodeOf(i, n, l.k(), l.placement()) != Nodes.nodeOf(pred, n, l.k(), l.placement());
            procs[(i - first) / step].tell(new Link(l.next()[x], fromOther, gate), getSelf());
        }
    }
}
