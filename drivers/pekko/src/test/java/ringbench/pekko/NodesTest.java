package ringbench.pekko;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.ConfigFactory;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.Props;
import org.apache.pekko.pattern.Patterns;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import ringbench.driver.Across;
import ringbench.pekko.Messages.Arrivals;
import ringbench.pekko.Messages.Assign;
import ringbench.pekko.Messages.AwaitEnd;
import ringbench.pekko.Messages.Finished;
import ringbench.pekko.Messages.Hello;
import ringbench.pekko.Messages.Kind;
import ringbench.pekko.Messages.LinkOn;
import ringbench.pekko.Messages.NodeView;
import ringbench.pekko.Messages.Prove;
import ringbench.pekko.Messages.Spawn;
import ringbench.pekko.Messages.SpawnOn;
import ringbench.pekko.Messages.Spawned;
import ringbench.pekko.Messages.SpawnedOn;
import ringbench.pekko.Messages.Stop;
import ringbench.pekko.Messages.Sum;
import ringbench.pekko.Messages.Token;
import ringbench.pekko.Messages.TraceToken;
import ringbench.pekko.Messages.View;
import ringbench.pekko.Messages.ViewStart;

/**
 * A ring across nodes without the other JVMs: the layout (every process on exactly one node, the node
 * section 10 gives it; K crossing edges a lap when contiguous), each wire message through the
 * serializer and back (Artery's buffer form and the byte-array form), and the coordinator spreading a
 * ring over "nodes" that are host actors of this one system (more processes than a host's reply chunk).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NodesTest {
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static ActorSystem system;

    @BeforeAll
    static void start() {
        system = ActorSystem.create("test",
                ConfigFactory.parseString("pekko.loglevel = WARNING").withFallback(Main.config("stock", 4)));
    }

    @AfterAll
    static void end() throws Exception {
        system.terminate();
        system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    @Test
    void everyProcessIsOnTheNodeOfItsIndexOnce() {
        for (int n : new int[] {1, 2, 3, 7, 9, 10, 100, 1001}) {
            for (int k = 1; k <= Math.min(n, 5); k++) {
                for (int placement = 0; placement <= 1; placement++) {
                    int[] seen = new int[n];
                    for (int j = 0; j < k; j++) {
                        int[] at = Nodes.indices(j, n, k, placement);
                        for (int c = 0; c < at[2]; c++) {
                            int i = at[0] + c * at[1];
                            seen[i]++;
                            assertEquals(j, Nodes.nodeOf(i, n, k, placement), "n=" + n + " k=" + k + " i=" + i);
                        }
                    }
                    for (int i = 0; i < n; i++) assertEquals(1, seen[i], "n=" + n + " k=" + k + " i=" + i);
                    if (placement == 0 && k > 1) assertEquals(k, Across.crossPerLap(n, k, 0));
                }
            }
        }
        assertEquals(8, Across.crossPerLap(9, 2, 1)); // p0's predecessor p8 is on node 0 too
        assertEquals(10, Across.crossPerLap(10, 2, 1));
    }

    @Test
    void everyWireMessageRoundTrips() {
        WireSerializer w = new WireSerializer((ExtendedActorSystem) system);
        ActorRef ref = system.actorOf(NodeHost.props("n"));
        List<Object> messages = List.of(new Token(42), new TraceToken(7, -1), new Stop(10, 3, 4, 2),
                new Finished(1), new Sum(99, 12), new SpawnOn(Kind.TRACE, 100, 300, true, 1, 4, 25),
                new Hello(3), ViewStart.NOW, View.ASK, new Arrivals(5000), new Assign(2));
        for (Object m : messages) {
            ByteBuffer b = ByteBuffer.allocate(4096);
            w.toBinary(m, b);
            b.flip();
            assertEquals(m, w.fromBinary(b, w.manifest(m)));
            assertEquals(m, w.fromBinary(w.toBinary(m), w.manifest(m)));
        }
        SpawnedOn s = (SpawnedOn) w.fromBinary(w.toBinary(new SpawnedOn(3, 2, new ActorRef[] {ref, ref})), "Q");
        assertEquals(3, s.first());
        assertArrayEquals(new ActorRef[] {ref, ref}, s.procs());
        LinkOn l = (LinkOn) w.fromBinary(w.toBinary(new LinkOn(1, 2, 9, 2, 1, new ActorRef[] {ref, ref, ref})), "K");
        assertEquals(List.of(1, 2, 9, 2, 1), List.of(l.first(), l.step(), l.n(), l.k(), l.placement()));
        assertArrayEquals(new ActorRef[] {ref, ref, ref}, l.next());
        NodeView v = (NodeView) w.fromBinary(w.toBinary(new NodeView("a@b:1", new long[] {1, 2, 3})), "N");
        assertEquals("a@b:1", v.name());
        assertArrayEquals(new long[] {1, 2, 3}, v.values());
    }

    @Test
    void aRingSpreadOverHostsProvesItsCount() {
        int n = 2 * SpawnOn.CHUNK + 7, m = 3, tokens = 2;
        for (int placement = 0; placement <= 1; placement++) {
            ActorRef[] hosts = {null, system.actorOf(NodeHost.props("one")), system.actorOf(NodeHost.props("two"))};
            Props props = RingActor.props();
            Parent.Layout layout = new Parent.Layout(3, placement, hosts, Kind.RING, 0, false);
            Gate gate = new Gate(n);
            ActorRef parent = system.actorOf(
                    Parent.props(n, tokens, i -> props, i -> i + 1 == n ? 0 : i + 1, gate, layout));
            var asked = Patterns.ask(parent, Spawn.ASK, PATIENCE).toCompletableFuture();
            assertEquals(n, gate.await()); // node 0's arrivals and the two hosts' counts, one each
            Spawned spawned = (Spawned) asked.join();
            var end = Patterns.ask(parent, AwaitEnd.ASK, PATIENCE).toCompletableFuture();
            for (int j = 0; j < tokens; j++) spawned.procs()[j * n / tokens].tell(new Token((long) n * m), ActorRef.noSender());
            assertEquals(tokens, ((Sum) end.join()).value());
            assertEquals((long) n * m * tokens, ((Sum) ask(parent, new Prove(0, new Stop(0, n)))).value());
        }
    }

    private static Object ask(ActorRef to, Object question) {
        return Patterns.ask(to, question, PATIENCE).toCompletableFuture().join();
    }
}
