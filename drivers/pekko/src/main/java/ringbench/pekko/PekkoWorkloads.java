package ringbench.pekko;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import java.util.function.IntUnaryOperator;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.Props;
import org.apache.pekko.pattern.Patterns;
import ringbench.driver.Meter;
import ringbench.driver.Params;
import ringbench.driver.Workloads;
import ringbench.pekko.Messages.AwaitEnd;
import ringbench.pekko.Messages.Prove;
import ringbench.pekko.Messages.Spawn;
import ringbench.pekko.Messages.Spawned;
import ringbench.pekko.Messages.Start;
import ringbench.pekko.Messages.Stop;
import ringbench.pekko.Messages.Sum;
import ringbench.pekko.Messages.Token;
import ringbench.pekko.Messages.TraceToken;

/**
 * The workloads on one ActorSystem, made before the first iteration (outside every
 * timed phase). The main thread is not an actor: it makes each iteration's coordinator
 * ({@link Parent}), tells the processes with {@code tell} (no sender) and hears from them
 * only through replies to its asks (the ask pattern: {@code Patterns.ask}, whose future it
 * joins, parked; no busy waiting). Each wait of a timed phase is one ask: the spawn phase's
 * is the question that starts it; the message phase's is asked before its clock starts.
 */
final class PekkoWorkloads implements Workloads {
    /** An ask's timeout: longer than any run (the orchestrator's own limits end a stuck driver first). */
    private static final Duration PATIENCE = Duration.ofDays(1);

    private final ActorSystem system;

    PekkoWorkloads(ActorSystem system) { this.system = system; }

    private static CompletableFuture<Object> ask(ActorRef to, Object question) {
        return Patterns.ask(to, question, PATIENCE).toCompletableFuture();
    }

    private static long sum(CompletableFuture<Object> reply) {
        return ((Sum) reply.join()).value();
    }

    /** One iteration's coordinator, its processes and the ready signals it counted. */
    private record Ring(ActorRef parent, ActorRef[] procs, long ready) {}

    /** The spawn phase: the coordinator, asked, spawns and links the processes and replies at the last ready signal. */
    private Ring spawnAll(Meter meter, int processes, long finishing, IntFunction<Props> child, IntUnaryOperator linkTo) {
        meter.spawnBegins();
        ActorRef parent = system.actorOf(Parent.props(processes, finishing, child, linkTo));
        Spawned spawned = (Spawned) ask(parent, Spawn.ASK).join();
        meter.spawnEnds(spawned.ready());
        return new Ring(parent, spawned.procs(), spawned.ready());
    }

    /** Untimed: the coordinator stopped, and with it every child that has not exited yet; wait until all are gone. */
    private static void retire(ActorRef actor) {
        Patterns.gracefulStop(actor, PATIENCE).toCompletableFuture().join();
    }

    /** Untimed proof: a Stop sent to process {@code at} through the coordinator, which replies with the sum. */
    private static long proof(Ring ring, int at, Stop stop) {
        long count = sum(ask(ring.parent(), new Prove(at, stop)));
        retire(ring.parent());
        return count;
    }

    private static IntUnaryOperator successor(int n) {
        return i -> i + 1 == n ? 0 : i + 1;
    }

    @Override
    public long ring(Params p, Meter meter) {
        final int n = p.n(), tokens = p.tokens();
        final long value = (long) n * p.m();
        Props props = RingActor.props();
        Ring ring = spawnAll(meter, n, tokens, i -> props, successor(n));
        CompletableFuture<Object> end = ask(ring.parent(), AwaitEnd.ASK);
        meter.runBegins();
        for (int j = 0; j < tokens; j++) ring.procs()[p.entry(j)].tell(new Token(value), ActorRef.noSender());
        end.join();
        meter.runEnds();
        return proof(ring, 0, new Stop(0, n));
    }

    @Override
    public LongSupplier ringForever(Params p, Meter meter) {
        final int n = p.n();
        AtomicLong laps = new AtomicLong();
        Props first = LoopActor.props(laps), others = LoopActor.props(null);
        Ring ring = spawnAll(meter, n, 0, i -> i == 0 ? first : others, successor(n));
        meter.runBegins();
        for (int j = 0; j < p.tokens(); j++) ring.procs()[p.entry(j)].tell(new Token(Long.MAX_VALUE), ActorRef.noSender());
        return () -> laps.get() * n;
    }

    @Override
    public long trace(Params p, Meter meter, boolean print) {
        final int n = p.n();
        final long total = (long) n * p.m();
        Ring ring = spawnAll(meter, n, 1, i -> TraceActor.props(i, n, total, print), successor(n));
        CompletableFuture<Object> end = ask(ring.parent(), AwaitEnd.ASK);
        meter.runBegins();
        ring.procs()[0].tell(new TraceToken(total, -1), ActorRef.noSender());
        end.join();
        meter.runEnds();
        return proof(ring, 0, new Stop(0, n));
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

    @Override
    public long tree(Params p, Meter meter) {
        meter.treeBegins();
        ActorRef root = system.actorOf(TreeNode.props(0, p.n(), p.fanout(), null));
        long sum = sum(ask(root, AwaitEnd.ASK));
        meter.treeEnds();
        retire(root);
        return sum;
    }
}
