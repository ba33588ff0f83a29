package ringbench.pekko;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import java.util.function.IntUnaryOperator;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.Props;
import ringbench.driver.Meter;
import ringbench.driver.Params;
import ringbench.driver.Workloads;
import ringbench.pekko.Messages.Start;
import ringbench.pekko.Messages.Stop;
import ringbench.pekko.Messages.Token;
import ringbench.pekko.Messages.TraceToken;

/**
 * The workloads on one ActorSystem, made before the first iteration (outside every
 * timed phase). The main thread is not an actor: it spawns each iteration's
 * processes through a {@link Parent}, talks to them with {@code tell} (no sender)
 * and hears from them through the latches and futures of a {@link Run}.
 */
final class PekkoWorkloads implements Workloads {
    private final ActorSystem system;

    PekkoWorkloads(ActorSystem system) { this.system = system; }

    /** The spawn phase: the parent spawns and links the processes; it ends at the last ready signal. */
    private ActorRef spawnAll(Run run, Meter meter, IntFunction<Props> child, IntUnaryOperator linkTo)
            throws InterruptedException {
        meter.spawnBegins();
        ActorRef parent = system.actorOf(Parent.props(run, child, linkTo));
        run.ready.await();
        meter.spawnEnds(run.procs.length - run.ready.getCount());
        return parent;
    }

    /** Untimed: the parent stopped, and with it every child that has not exited yet; wait until all are gone. */
    private void retire(Run run, ActorRef parent) throws InterruptedException {
        system.stop(parent);
        run.gone.await();
    }

    /** Untimed proof: a Stop travels the ring once from p0, each process adds its receipts and exits. */
    private long proof(Run run, ActorRef parent) throws InterruptedException {
        run.procs[0].tell(new Stop(0, run.procs.length), ActorRef.noSender());
        long count = run.sum.join();
        retire(run, parent);
        return count;
    }

    private static IntUnaryOperator successor(int n) {
        return i -> i + 1 == n ? 0 : i + 1;
    }

    @Override
    public long ring(Params p, Meter meter) throws InterruptedException {
        final int n = p.n(), tokens = p.tokens();
        final long value = (long) n * p.m();
        Run run = new Run(n, tokens);
        Props props = RingActor.props(run);
        ActorRef parent = spawnAll(run, meter, i -> props, successor(n));
        meter.runBegins();
        for (int j = 0; j < tokens; j++) run.procs[p.entry(j)].tell(new Token(value), ActorRef.noSender());
        run.finished.await();
        meter.runEnds();
        return proof(run, parent);
    }

    @Override
    public LongSupplier ringForever(Params p, Meter meter) throws InterruptedException {
        final int n = p.n();
        Run run = new Run(n, 0);
        AtomicLong laps = new AtomicLong();
        Props first = LoopActor.props(run, laps), others = LoopActor.props(run, null);
        spawnAll(run, meter, i -> i == 0 ? first : others, successor(n));
        meter.runBegins();
        for (int j = 0; j < p.tokens(); j++) run.procs[p.entry(j)].tell(new Token(Long.MAX_VALUE), ActorRef.noSender());
        return () -> laps.get() * n;
    }

    @Override
    public long trace(Params p, Meter meter, boolean print) throws InterruptedException {
        final int n = p.n();
        final long total = (long) n * p.m();
        Run run = new Run(n, 1);
        ActorRef parent = spawnAll(run, meter, i -> TraceActor.props(run, i, n, total, print), successor(n));
        meter.runBegins();
        run.procs[0].tell(new TraceToken(total, -1), ActorRef.noSender());
        run.finished.await();
        meter.runEnds();
        return proof(run, parent);
    }

    /** spawn: the ring's processes, spawned and linked as the ring does, idle; then released untimed. */
    @Override
    public long spawn(Params p, Meter meter) throws InterruptedException {
        final int n = p.n();
        Run run = new Run(n, 0);
        Props props = RingActor.props(run);
        ActorRef parent = spawnAll(run, meter, i -> props, successor(n));
        long ready = n - run.ready.getCount();
        proof(run, parent);
        return ready;
    }

    @Override
    public long pingpong(Params p, Meter meter) throws InterruptedException {
        Run run = new Run(2, 1);
        Props a = PingPong.Ping.props(run, p.m()), b = PingPong.Pong.props(run);
        ActorRef parent = spawnAll(run, meter, i -> i == 0 ? a : b, i -> 1 - i);
        meter.runBegins();
        run.procs[0].tell(Start.GO, ActorRef.noSender());
        run.finished.await();
        meter.runEnds();
        run.procs[1].tell(new Stop(0, 1), ActorRef.noSender());
        long count = run.sum.join();
        retire(run, parent);
        return count;
    }

    @Override
    public long fanin(Params p, Meter meter) throws InterruptedException {
        final int n = p.n();
        Run run = new Run(n + 1, 0);
        Props rx = FanIn.Receiver.props(run, n * p.m()), sender = FanIn.Sender.props(run, p.m());
        ActorRef parent = spawnAll(run, meter, i -> i == 0 ? rx : sender, i -> i == 0 ? -1 : 0);
        meter.runBegins();
        for (int i = 1; i <= n; i++) run.procs[i].tell(Start.GO, ActorRef.noSender());
        long got = run.sum.join();
        meter.runEnds();
        retire(run, parent);
        return got;
    }

    @Override
    public long tree(Params p, Meter meter) throws InterruptedException {
        CompletableFuture<Long> result = new CompletableFuture<>();
        CountDownLatch gone = new CountDownLatch(1);
        meter.treeBegins();
        system.actorOf(TreeNode.props(0, p.n(), p.fanout(), null, result, gone));
        long sum = result.join();
        meter.treeEnds();
        gone.await();
        return sum;
    }
}
