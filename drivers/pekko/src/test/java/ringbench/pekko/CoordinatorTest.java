package ringbench.pekko;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.Props;
import org.apache.pekko.pattern.Patterns;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import ringbench.pekko.Messages.AwaitEnd;
import ringbench.pekko.Messages.Prove;
import ringbench.pekko.Messages.Spawn;
import ringbench.pekko.Messages.Spawned;
import ringbench.pekko.Messages.Stop;
import ringbench.pekko.Messages.Sum;
import ringbench.pekko.Messages.Token;

/**
 * The driver's own coordination, on a dispatcher of 4 threads so that children run at once: the gate
 * (the coordinator replies to the spawn ask once, when the last child has arrived, every
 * child linked), the end of the message phase (every token counted, whichever comes first of
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
        ActorRef parent = system.actorOf(Parent.props(n, tokens, i -> props, i -> i + 1 == n ? 0 : i + 1));
        Spawned spawned = (Spawned) ask(parent, Spawn.ASK);
        assertEquals(n, spawned.ready());
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
            ActorRef root = system.actorOf(TreeNode.props(0, n, t[1], null));
            assertEquals((long) n * (n - 1) / 2, ((Sum) ask(root, AwaitEnd.ASK)).value());
            assertEquals(true, Patterns.gracefulStop(root, PATIENCE).toCompletableFuture().join());
        }
    }

    @Test
    void aSpawnWithNoChildToWaitForNeverReplies() {
        // The coordinator replies only at its n-th Arrived: asked to spawn 1 child that never links, no reply.
        ActorRef parent = system.actorOf(Parent.props(1, 0, i -> Props.create(Silent.class, Silent::new), i -> -1));
        CompletableFuture<Object> reply = Patterns.ask(parent, Spawn.ASK, Duration.ofMillis(300)).toCompletableFuture();
        assertFalse(reply.handle((v, e) -> e == null).join());
        system.stop(parent);
    }

    /** A child that never arrives. */
    static final class Silent extends org.apache.pekko.actor.AbstractActor {
        @Override
        public Receive createReceive() {
            return receiveBuilder().matchAny(m -> {}).build();
        }
    }
}
