package ringbench.pekko;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.Props;
import org.apache.pekko.pattern.Patterns;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import ringbench.pekko.Messages.AwaitEnd;
import ringbench.pekko.Messages.Link;
import ringbench.pekko.Messages.Prove;
import ringbench.pekko.Messages.Spawn;
import ringbench.pekko.Messages.Spawned;
import ringbench.pekko.Messages.Stop;
import ringbench.pekko.Messages.Sum;
import ringbench.pekko.Messages.Token;

/**
 * The driver's own coordination, on a dispatcher of 4 threads so that children run at once: the gate
 * (main wakes once, when the last child has arrived, every child linked; a child slow to reach its
 * first receive delays the wake; a child that never arrives keeps it shut; counts added at once
 * open it once), the end of the message phase (every token counted, whichever comes first of
 * main's ask and the last token), the proof relayed, the tree's root answering its ask before and
 * after its sum is known, and gracefulStop waiting for every child. A lost reply fails by timeout.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CoordinatorTest {
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static ActorSystem system;

    @BeforeAll
    static void start() {
        // Pekko logs its shutdown at INFO to stdout: warnings only.
        system = ActorSystem.create("test",
                ConfigFactory.parseString("pekko.loglevel = WARNING").withFallback(Main.config("stock", 4)));
    }

    @AfterAll
    static void end() throws Exception {
        system.terminate();
        system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    private static Object ask(ActorRef to, Object question) {
        return Patterns.ask(to, question, PATIENCE).toCompletableFuture().join();
    }

    private static void ring(int n, int m, int tokens, boolean askLate) {
        Props props = RingActor.props();
        Gate gate = new Gate(n);
        ActorRef parent = system.actorOf(Parent.props(n, tokens, i -> props, i -> i + 1 == n ? 0 : i + 1, gate));
        CompletableFuture<Object> asked = Patterns.ask(parent, Spawn.ASK, PATIENCE).toCompletableFuture();
        assertEquals(n, gate.await());
        Spawned spawned = (Spawned) asked.join();
        assertEquals(n, spawned.procs().length);
        for (ActorRef p : spawned.procs()) assertNotNull(p);
        CompletableFuture<Object> end = askLate ? null
                : Patterns.ask(parent, AwaitEnd.ASK, PATIENCE).toCompletableFuture();
        for (int j = 0; j < tokens; j++) {
            spawned.procs()[(int) ((long) j * n / tokens)].tell(new Token((long) n * m), ActorRef.noSender());
        }
        Sum finished = (Sum) (askLate ? ask(parent, AwaitEnd.ASK) : end.join());
        assertEquals(tokens, finished.value());
        assertEquals((long) n * m * tokens, ((Sum) ask(parent, new Prove(0, new Stop(0, n)))).value());
        assertEquals(true, Patterns.gracefulStop(parent, PATIENCE).toCompletableFuture().join());
    }

    @Test
    void theGateRepliesOnceEveryChildHasArrived() {
        for (int round = 0; round < 50; round++) ring(1 + round * 97, 3, 1, false);
    }

    @Test
    void everyTokenIsCountedWhicheverComesFirst() {
        for (int round = 0; round < 20; round++) {
            ring(200, 5, 1 + round * 10, round % 2 == 1);
        }
        ring(1, 1, 1, true);
    }

    @Test
    void theTreesRootAnswersItsAsk() {
        for (int[] t : new int[][] {{1, 10}, {10, 10}, {1000, 10}, {1024, 2}, {10000, 10}}) {
            int n = t[0];
            ActorRef root = TreeNode.root(system, n, t[1]);
            assertEquals((long) n * (n - 1) / 2, ((Sum) ask(root, AwaitEnd.ASK)).value());
            assertEquals(true, Patterns.gracefulStop(root, PATIENCE).toCompletableFuture().join());
        }
    }

    @Test
    void theGateStaysShutWhileAChildHasNotArrived() throws InterruptedException {
        // Two children linked (the coordinator has replied), one of which never arrives: the gate counts 1.
        Gate gate = new Gate(2);
        ActorRef parent = system.actorOf(Parent.props(2, 0,
                i -> i == 0 ? Props.create(Silent.class, Silent::new) : RingActor.props(), i -> 1 - i, gate));
        ask(parent, Spawn.ASK);
        Thread.sleep(300);
        assertEquals(1, gate.seen());
        system.stop(parent);
    }

    @Test
    void aChildSlowToReachItsFirstReceiveDelaysTheWake() {
        // The boundary is the last arrival, not the last Link: main wakes no sooner than a child that
        // sleeps 300 ms between its Link and its arrival.
        final int n = 50;
        Gate gate = new Gate(n);
        ActorRef parent = system.actorOf(Parent.props(n, 0,
                i -> i == n / 2 ? Props.create(Slow.class, Slow::new) : RingActor.props(), i -> (i + 1) % n, gate));
        long t0 = System.nanoTime();
        CompletableFuture<Object> asked = Patterns.ask(parent, Spawn.ASK, PATIENCE).toCompletableFuture();
        assertEquals(n, gate.await());
        long waited = System.nanoTime() - t0;
        assertTrue(waited >= Slow.DELAY_NS, "main woke after " + waited + " ns, before the slow child arrived");
        asked.join();
        system.stop(parent);
    }

    @Test
    void countsAddedAtOnceOpenTheGateOnce() throws Exception {
        // 4 threads each add 1 a thousand times and one node count of 6,000 (an agent's Arrivals): the
        // gate's action runs exactly once, when the total 10,000 is reached, whatever the order.
        for (int round = 0; round < 20; round++) {
            AtomicInteger opened = new AtomicInteger();
            Gate gate = new Gate(10_000, opened::incrementAndGet);
            Thread[] ts = new Thread[5];
            for (int t = 0; t < ts.length; t++) {
                final boolean node = t == 4;
                ts[t] = new Thread(() -> {
                    if (node) gate.arrive(6_000);
                    else for (int k = 0; k < 1_000; k++) gate.arrive();
                });
                ts[t].start();
            }
            for (Thread t : ts) t.join();
            assertEquals(1, opened.get());
            assertEquals(10_000, gate.seen());
        }
        // The waiting form: main parked until another thread's arrivals complete the count.
        Gate gate = new Gate(3);
        Thread other = new Thread(() -> {
            gate.arrive(2);
            gate.arrive();
        });
        other.start();
        assertEquals(3, gate.await());
        other.join();
    }

    /** A child that never arrives. */
    static final class Silent extends org.apache.pekko.actor.AbstractActor {
        @Override
        public Receive createReceive() {
            return receiveBuilder().matchAny(m -> {}).build();
        }
    }

    /** A ring child that sleeps before it arrives: still short of its first receive meanwhile. */
    static final class Slow extends org.apache.pekko.actor.AbstractActor {
        static final long DELAY_NS = 300_000_000L;

        @Override
        public Receive createReceive() {
            return receiveBuilder().match(Link.class, l -> {
                Thread.sleep(DELAY_NS / 1_000_000);
                l.gate().arrive();
            }).matchAny(m -> {}).build();
        }
    }
}
