package ringbench.pekko;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import java.util.function.IntUnaryOperator;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.Props;
import org.apache.pekko.pattern.Patterns;
import ringbench.driver.Across;
import ringbench.driver.Fail;
import ringbench.driver.Meter;
import ringbench.driver.Out;
import ringbench.driver.Params;
import ringbench.pekko.Messages.AwaitEnd;
import ringbench.pekko.Messages.Kind;
import ringbench.pekko.Messages.NodeView;
import ringbench.pekko.Messages.Prove;
import ringbench.pekko.Messages.Spawn;
import ringbench.pekko.Messages.Spawned;
import ringbench.pekko.Messages.Start;
import ringbench.pekko.Messages.Stop;
import ringbench.pekko.Messages.Sum;
import ringbench.pekko.Messages.Token;
import ringbench.pekko.Messages.TraceToken;
import ringbench.pekko.Messages.View;
import ringbench.pekko.Messages.ViewStart;

/**
 * The workloads on one ActorSystem, made before the first iteration (outside every
 * timed phase). The main thread is not an actor: it makes each iteration's coordinator
 * ({@link Parent}), tells the processes with {@code tell} (no sender) and hears from them
 * only through replies to its asks (the ask pattern: {@code Patterns.ask}, whose future it
 * joins, parked; no busy waiting). The spawn phase's wait is the gate ({@link Gate}): main parks
 * until the actor whose arrival completes the count unparks it; the message phase's is one ask,
 * asked before its clock starts.
 */
final class PekkoWorkloads implements Across.Spread {
    /** An ask's timeout: longer than any run (the orchestrator's own limits end a stuck driver first). */
    private static final Duration PATIENCE = Duration.ofDays(1);

    /** How long a node's host may take to answer the cluster view's question. */
    private static final Duration VIEW_PATIENCE = Duration.ofSeconds(10);

    private final ActorSystem system;
    private final Cluster cluster; // null: one node
    private long cross; // the last proof's cross-node receipts
    private long inRing0; // continuous mode: the ring's processes on node 0

    PekkoWorkloads(ActorSystem system) { this(system, null); }

    /** The workloads on node 0 of a ring across the nodes of {@code cluster} (null: this node alone). */
    PekkoWorkloads(ActorSystem system, Cluster cluster) {
        this.system = system;
        this.cluster = cluster;
    }

    /** Where the ring's processes of the given kind live: null (all here) or the cluster's layout. */
    private Parent.Layout layout(Kind kind, long total, boolean print) {
        return cluster == null ? null : new Parent.Layout(cluster.k, cluster.placement, cluster.hosts, kind, total, print);
    }

    /** The node of process i (0 on one node). */
    private int nodeOf(int i, int n) { return cluster == null ? 0 : Nodes.nodeOf(i, n, cluster.k, cluster.placement); }

    private static CompletableFuture<Object> ask(ActorRef to, Object question) {
        return Patterns.ask(to, question, PATIENCE).toCompletableFuture();
    }

    private static long sum(CompletableFuture<Object> reply) {
        return ((Sum) reply.join()).value();
    }

    /** One iteration's coordinator, its processes and the arrivals its gate counted. */
    private record Ring(ActorRef parent, ActorRef[] procs, long ready) {}

    /**
     * The spawn phase: the coordinator, asked, spawns and links the processes, each of which arrives at
     * the gate main made; the phase ends when main wakes at the gate. The coordinator's reply, the
     * processes, is taken after the clock has stopped.
     */
    private Ring spawnAll(Meter meter, int processes, long finishing, IntFunction<Props> child, IntUnaryOperator linkTo) {
        return spawnAll(meter, processes, finishing, child, linkTo, null);
    }

    private Ring spawnAll(Meter meter, int processes, long finishing, IntFunction<Props> child, IntUnaryOperator linkTo,
            Parent.Layout layout) {
        Gate gate = new Gate(processes);
        meter.spawnBegins();
        ActorRef parent = system.actorOf(Parent.props(processes, finishing, child, linkTo, gate, layout));
        CompletableFuture<Object> spawned = ask(parent, Spawn.ASK);
        long ready = gate.await();
        meter.spawnEnds(ready);
        return new Ring(parent, ((Spawned) spawned.join()).procs(), ready);
    }

    /** Untimed: the coordinator stopped, and with it every child that has not exited yet; wait until all are gone. */
    private static void retire(ActorRef actor) {
        Patterns.gracefulStop(actor, PATIENCE).toCompletableFuture().join();
    }

    /**
     * Untimed proof: a Stop sent to process {@code at} through the coordinator, which replies with the sum
     * (and its cross-node receipts, kept for {@link #crossHops}).
     */
    private long proof(Ring ring, int at, Stop stop) {
        Sum sum = (Sum) ask(ring.parent(), new Prove(at, stop)).join();
        retire(ring.parent());
        cross = sum.cross();
        return sum.value();
    }

    /** The proof of a ring of n: from p0, whose predecessor is p(n−1) (on its node). */
    private Stop ringStop(int n) { return new Stop(0, n, 0, nodeOf(n - 1, n)); }

    @Override
    public long crossHops() { return cross; }

    private static IntUnaryOperator successor(int n) {
        return i -> i + 1 == n ? 0 : i + 1;
    }

    @Override
    public long ring(Params p, Meter meter) {
        final int n = p.n(), tokens = p.tokens();
        final long value = (long) n * p.m();
        Props props = RingActor.props();
        Ring ring = spawnAll(meter, n, tokens, i -> props, successor(n), layout(Kind.RING, 0, false));
        CompletableFuture<Object> end = ask(ring.parent(), AwaitEnd.ASK);
        meter.runBegins();
        for (int j = 0; j < tokens; j++) ring.procs()[p.entry(j)].tell(new Token(value), ActorRef.noSender());
        end.join();
        meter.runEnds();
        return proof(ring, 0, ringStop(n));
    }

    @Override
    public LongSupplier ringForever(Params p, Meter meter) {
        final int n = p.n();
        AtomicLong laps = Nodes.LAPS;
        Props first = LoopActor.props(laps), others = LoopActor.props(null);
        Ring ring = spawnAll(meter, n, 0, i -> i == 0 ? first : others, successor(n), layout(Kind.LOOP, 0, false));
        for (int i = 0; i < n; i++) if (nodeOf(i, n) == 0) inRing0++;
        // The cluster view's clocks: every host's started (asked, untimed), then this node's.
        if (cluster != null) {
            List<CompletableFuture<Object>> started = new ArrayList<>();
            for (int j = 1; j < cluster.k; j++) {
                started.add(Patterns.ask(cluster.hosts[j], ViewStart.NOW, VIEW_PATIENCE).toCompletableFuture());
            }
            started.forEach(CompletableFuture::join);
        }
        Nodes.startView();
        meter.runBegins();
        for (int j = 0; j < p.tokens(); j++) ring.procs()[p.entry(j)].tell(new Token(Long.MAX_VALUE), ActorRef.noSender());
        return () -> laps.get() * n;
    }

    @Override
    public long trace(Params p, Meter meter, boolean print) {
        if (cluster != null && cluster.remote) {
            // A process prints its hop line itself, as the token arrives: on another host, to that peer's stdout.
            throw Fail.unsupported("trace over nodes on other hosts: a hop line is printed where its process runs, "
                    + "on that host's terminal, not in this driver's output (local nodes: --nodes K)");
        }
        final int n = p.n();
        final long total = (long) n * p.m();
        Ring ring = spawnAll(meter, n, 1, i -> TraceActor.props(i, n, total, print), successor(n),
                layout(Kind.TRACE, total, print));
        CompletableFuture<Object> end = ask(ring.parent(), AwaitEnd.ASK);
        meter.runBegins();
        ring.procs()[0].tell(new TraceToken(total, -1), ActorRef.noSender());
        end.join();
        meter.runEnds();
        return proof(ring, 0, ringStop(n));
    }

    /** spawn: the ring's processes, spawned and linked as the ring does, idle; then released untimed. */
    @Override
    public long spawn(Params p, Meter meter) {
        final int n = p.n();
        Props props = RingActor.props();
        Ring ring = spawnAll(meter, n, 0, i -> props, successor(n));
        proof(ring, 0, new Stop(0, n));
        return ring.ready();
    }

    @Override
    public long pingpong(Params p, Meter meter) {
        Props a = PingPong.Ping.props(p.m()), b = PingPong.Pong.props();
        Ring ring = spawnAll(meter, 2, 1, i -> i == 0 ? a : b, i -> 1 - i);
        CompletableFuture<Object> end = ask(ring.parent(), AwaitEnd.ASK);
        meter.runBegins();
        ring.procs()[0].tell(Start.GO, ActorRef.noSender());
        end.join();
        meter.runEnds();
        return proof(ring, 1, new Stop(0, 1));
    }

    @Override
    public long fanin(Params p, Meter meter) {
        final int n = p.n();
        Props rx = FanIn.Receiver.props((long) n * p.m()), sender = FanIn.Sender.props(p.m());
        Ring ring = spawnAll(meter, n + 1, 1, i -> i == 0 ? rx : sender, i -> i == 0 ? -1 : 0);
        CompletableFuture<Object> end = ask(ring.parent(), AwaitEnd.ASK);
        meter.runBegins();
        for (int i = 1; i <= n; i++) ring.procs()[i].tell(Start.GO, ActorRef.noSender());
        long got = sum(end);
        meter.runEnds();
        retire(ring.parent());
        return got;
    }

    /** The cluster view after sample {@code seq}: node 0's, then each host's, asked (contract section 10). */
    @Override
    public void views(long seq) {
        int k = cluster == null ? 1 : cluster.k;
        List<CompletableFuture<Object>> asked = new ArrayList<>();
        for (int j = 1; j < k; j++) asked.add(Patterns.ask(cluster.hosts[j], View.ASK, VIEW_PATIENCE).toCompletableFuture());
        NodeView own = Nodes.view(cluster == null ? system.name() : cluster.names[0], inRing0);
        record(seq, 0, own);
        for (int j = 1; j < k; j++) record(seq, j, (NodeView) asked.get(j - 1).join());
    }

    private static void record(long seq, int node, NodeView v) {
        Out.Rec r = new Out.Rec("node").n("seq", seq).n("node", node).s("name", v.name());
        for (int f = 0; f < NodeView.FIELDS.length; f++) r.n(NodeView.FIELDS[f], v.values()[f]);
        r.emit();
    }

    @Override
    public void close() {
        if (cluster != null) cluster.close();
    }

    /**
     * batch, after the line: end this run's ActorSystem (its actors, a continuous ring's too, and its
     * threads) and wait until it has ended; the next line makes its own, as a fresh process would.
     */
    @Override
    public void release() {
        Main.RELEASED.add(system);
        system.terminate();
        system.getWhenTerminated().toCompletableFuture().join();
        Nodes.LAPS.set(0);
        Nodes.across = false;
    }

    @Override
    public long tree(Params p, Meter meter) {
        meter.treeBegins();
        ActorRef root = TreeNode.root(system, p.n(), p.fanout());
        long sum = sum(ask(root, AwaitEnd.ASK));
        meter.treeEnds();
        retire(root);
        return sum;
    }
}
