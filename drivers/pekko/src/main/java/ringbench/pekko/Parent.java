package ringbench.pekko;

import java.util.function.IntFunction;
import java.util.function.IntUnaryOperator;
import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.PoisonPill;
import org.apache.pekko.actor.Props;
import ringbench.pekko.Messages.Arrivals;
import ringbench.pekko.Messages.AwaitEnd;
import ringbench.pekko.Messages.Finished;
import ringbench.pekko.Messages.Kind;
import ringbench.pekko.Messages.Link;
import ringbench.pekko.Messages.LinkOn;
import ringbench.pekko.Messages.Prove;
import ringbench.pekko.Messages.Spawn;
import ringbench.pekko.Messages.SpawnOn;
import ringbench.pekko.Messages.Spawned;
import ringbench.pekko.Messages.SpawnedOn;
import ringbench.pekko.Messages.Sum;

/**
 * The coordinator of one iteration's processes, and their parent (an actor creates its children:
 * the Pekko way; main is not an actor and asks it). Asked to {@link Spawn}, it spawns them with
 * {@code getContext().actorOf}, tells each its successor or peer with a {@link Link} carrying main's
 * {@link Gate}, and replies to main with the processes ({@link Spawned}). Each linked process arrives at
 * the gate itself, and the one that completes the count wakes main, once (contract section 3): the
 * coordinator takes no message per process. Across nodes it adds each node agent's {@link Arrivals}
 * to the gate. It counts the {@link Finished} tokens and answers main's {@link AwaitEnd}, sends the
 * proof's {@link Prove} and relays its {@link Sum}.
 * Stopping it (main's gracefulStop) stops what is left of its children first.
 */
final class Parent extends AbstractActor {
    private final IntFunction<Props> child;
    private final IntUnaryOperator linkTo;
    private final ActorRef[] procs;
    private final long finishing;
    private final Layout layout; // null: every process on this node
    private final Gate gate; // main's: the spawn phase ends when it opens
    private ActorRef spawnTo, endTo, sumTo; // main's asks, each answered once
    private long finished, ended;
    private int awaited; // processes whose node's agent has not replied yet (across nodes)
    private ActorRef[] agents; // across nodes: node j's agent for this ring (null on node 0)

    /**
     * A ring across nodes (README, "A ring across nodes"): k nodes, contiguous (0) or interleaved (1);
     * hosts[j] the host actor of node j (hosts[0] unused: node 0's processes are this coordinator's
     * children); a remote process of the given kind (trace: total receipts, printing).
     */
    record Layout(int k, int placement, ActorRef[] hosts, Kind kind, long total, boolean print) {
        int nodeOf(int i, int n) { return Nodes.nodeOf(i, n, k, placement); }
    }

    /**
     * @param processes how many children
     * @param finishing the {@link Finished} messages that end the message phase (0: none ends it)
     * @param child     the props of child i (ring and spawn share one Props: a child keeps its props)
     * @param linkTo    the index of the process child i is linked to, or -1 for none
     * @param gate      the gate main waits at, for {@code processes} arrivals
     */
    Parent(int processes, long finishing, IntFunction<Props> child, IntUnaryOperator linkTo, Gate gate,
            Layout layout) {
        this.procs = new ActorRef[processes];
        this.finishing = finishing;
        this.child = child;
        this.linkTo = linkTo;
        this.layout = layout;
        this.gate = gate;
    }

    static Props props(int processes, long finishing, IntFunction<Props> child, IntUnaryOperator linkTo, Gate gate) {
        return props(processes, finishing, child, linkTo, gate, null);
    }

    /** A ring's coordinator with its processes spread over the nodes of {@code layout} (null: all here). */
    static Props props(int processes, long finishing, IntFunction<Props> child, IntUnaryOperator linkTo, Gate gate,
            Layout layout) {
        return Props.create(Parent.class, () -> new Parent(processes, finishing, child, linkTo, gate, layout));
    }

    @Override
    public Receive createReceive() {
        return receiveBuilder()
                // A remote process cannot reach main's counter (another JVM's memory): a node's agent
                // counts its own processes at a gate of its own and sends one Arrivals per node.
                .match(Arrivals.class, r -> gate.arrive(r.count()))
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
                .match(SpawnedOn.class, this::spawnedOn)
                .build();
    }

    /** Across nodes: the agents stop too, and with them what is left of their processes. */
    @Override
    public void postStop() {
        if (agents != null) for (ActorRef a : agents) if (a != null) a.tell(PoisonPill.getInstance(), getSelf());
    }

    private void spawn() {
        spawnTo = getSender();
        final int n = procs.length;
        if (layout == null) {
            for (int i = 0; i < n; i++) procs[i] = getContext().actorOf(child.apply(i));
            link();
            return;
        }
        agents = new ActorRef[layout.k()];
        for (int i = 0; i < n; i++) if (layout.nodeOf(i, n) == 0) procs[i] = getContext().actorOf(child.apply(i));
        for (int j = 1; j < layout.k(); j++) {
            int[] at = Nodes.indices(j, n, layout.k(), layout.placement());
            if (at[2] == 0) continue;
            awaited += at[2];
            layout.hosts()[j].tell(new SpawnOn(layout.kind(), n, layout.total(), layout.print(), at[0], at[1], at[2]),
                    getSelf());
        }
        if (awaited == 0) link();
    }

    /** A node agent's processes: once every node's are known, link the ring. */
    private void spawnedOn(SpawnedOn s) {
        agents[layout.nodeOf(s.first(), procs.length)] = getSender();
        for (int x = 0; x < s.procs().length; x++) procs[s.first() + x * s.step()] = s.procs()[x];
        awaited -= s.procs().length;
        if (awaited == 0) link();
    }

    /**
     * Tell each process its successor and the gate: this node's directly; across nodes, each other node's
     * through its agent, {@link SpawnOn#CHUNK} successors a message, which links them there (with whether
     * each one's predecessor is on another node, and its own gate) and tells the count once they have all
     * arrived. Then main has the processes.
     */
    private void link() {
        final ActorRef self = getSelf();
        final int n = procs.length;
        for (int i = 0; i < n; i++) {
            if (layout != null && layout.nodeOf(i, n) != 0) continue;
            int to = linkTo.applyAsInt(i);
            boolean fromOther = layout != null && layout.nodeOf(i, n) != layout.nodeOf(i == 0 ? n - 1 : i - 1, n);
            procs[i].tell(new Link(to < 0 ? null : procs[to], fromOther, gate), self);
        }
        for (int j = 1; layout != null && j < layout.k(); j++) {
            int[] at = Nodes.indices(j, n, layout.k(), layout.placement());
            for (int c = 0; c < at[2]; c += SpawnOn.CHUNK) {
                ActorRef[] next = new ActorRef[Math.min(SpawnOn.CHUNK, at[2] - c)];
                for (int x = 0; x < next.length; x++) next[x] = procs[linkTo.applyAsInt(at[0] + (c + x) * at[1])];
                agents[j].tell(new LinkOn(at[0] + c * at[1], at[1], n, layout.k(), layout.placement(), next), self);
            }
        }
        spawnTo.tell(new Spawned(procs), self); // main takes it once the gate has opened
    }
}
