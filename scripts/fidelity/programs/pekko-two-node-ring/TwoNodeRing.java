import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.Props;
import org.apache.pekko.pattern.Patterns;

/**
 * A plain Pekko classic ring over K ActorSystems on loopback (Java API), written for ringbench's
 * comparison: the plain ring (Integer token, each actor told its successor's ActorRef) with Artery
 * remoting over TCP and Pekko's built-in serializers (java.lang.Integer: primitive-int; ActorRef:
 * pekko-misc). Main starts K - 1 peer JVMs (this class, "peer"), each with a spawner actor that makes
 * a ring actor on request and replies with its ref; process i lives on node i mod K (placement 1) or
 * i*K/N (placement 0). The ring is built backwards, each actor made with its successor, so no link
 * message and no burst crosses; p0 (on node 0) gets its successor last. The token of N*M starts at
 * p1, so the receipt of 1 is p0's: it releases main. Usage: TwoNodeRing N M K PLACEMENT CORES.
 * A peer halts when its stdin (a pipe from main) closes: it never outlives main.
 */
public final class TwoNodeRing {
    private TwoNodeRing() {}

    static final class Node extends AbstractActor {
        private final CountDownLatch done; // null on a peer: p0, on node 0, receives the last token
        private ActorRef next;

        Node(ActorRef next, CountDownLatch done) {
            this.next = next;
            this.done = done;
        }

        @Override
        public Receive createReceive() {
            return receiveBuilder()
                    .match(Integer.class, v -> {
                        if (v == 1) done.countDown();
                        else next.tell(v - 1, getSelf());
                    })
                    .match(ActorRef.class, r -> next = r)
                    .build();
        }
    }

    /** A peer's /user/spawner: told a successor, it makes a ring actor with it and replies with the actor. */
    static final class Spawner extends AbstractActor {
        @Override
        public Receive createReceive() {
            return receiveBuilder()
                    .match(ActorRef.class, next -> getSender().tell(
                            getContext().actorOf(Props.create(Node.class, () -> new Node(next, null))), getSelf()))
                    .build();
        }
    }

    static Config config(int cores) {
        return ConfigFactory.parseString(""
                + "pekko.actor.provider = remote\n"
                + "pekko.remote.artery.transport = tcp\n"
                + "pekko.remote.artery.canonical.hostname = \"127.0.0.1\"\n"
                + "pekko.remote.artery.canonical.port = 0\n"
                + "pekko.actor.default-dispatcher.fork-join-executor.parallelism-min = " + cores + "\n"
                + "pekko.actor.default-dispatcher.fork-join-executor.parallelism-max = " + cores + "\n"
                + "pekko.loglevel = WARNING\n").withFallback(ConfigFactory.load());
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("peer")) {
            peer(Integer.parseInt(args[1]));
            return;
        }
        int n = Integer.parseInt(args[0]), m = Integer.parseInt(args[1]), k = Integer.parseInt(args[2]);
        int placement = Integer.parseInt(args[3]), cores = Integer.parseInt(args[4]);
        ActorSystem system = ActorSystem.create("ring", config(cores));
        String[] cpus = peerCpus(k);
        ActorRef[] spawners = new ActorRef[k];
        for (int j = 1; j < k; j++) spawners[j] = startPeer(system, cores, cpus[j]);
        CountDownLatch done = new CountDownLatch(1);
        ActorRef[] nodes = new ActorRef[n];
        nodes[0] = system.actorOf(Props.create(Node.class, () -> new Node(null, done)));
        Duration patience = Duration.ofSeconds(60);
        for (int i = n - 1; i >= 1; i--) {
            ActorRef next = nodes[(i + 1) % n];
            int j = placement == 1 ? i % k : (int) ((long) i * k / n);
            nodes[i] = j == 0 ? system.actorOf(Props.create(Node.class, () -> new Node(next, null)))
                    : (ActorRef) Patterns.ask(spawners[j], next, patience).toCompletableFuture().join();
        }
        nodes[0].tell(nodes[1 % n], ActorRef.noSender());
        nodes[1 % n].tell(n * m, ActorRef.noSender());
        done.await();
        System.out.println((long) n * m);
        Runtime.getRuntime().halt(0); // no teardown: the JVM ends here, and with it the peers' stdin
    }

    /** Start a peer JVM (this java, class path and class) and resolve its spawner once it prints its port. */
    static ActorRef startPeer(ActorSystem system, int cores, String cpu) throws IOException {
        List<String> cmd = new ArrayList<>();
        if (!cpu.isEmpty()) cmd.addAll(List.of("taskset", "-c", cpu));
        cmd.addAll(List.of(ProcessHandle.current().info().command().orElseThrow(), "-XX:+UseG1GC",
                "--sun-misc-unsafe-memory-access=allow", "-cp", System.getProperty("java.class.path"),
                TwoNodeRing.class.getName(), "peer", Integer.toString(cores)));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String port = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine();
        if (port == null) throw new IOException("a peer ended before it started");
        return system.actorSelection("pekko://ring@127.0.0.1:" + port.trim() + "/user/spawner")
                .resolveOne(Duration.ofSeconds(60)).toCompletableFuture().join();
    }

    static void peer(int cores) throws IOException {
        java.io.PrintStream toMain = System.out;
        System.setOut(System.err); // Pekko's logger prints to stdout: main reads one line from it, the port
        ActorSystem system = ActorSystem.create("ring", config(cores));
        system.actorOf(Props.create(Spawner.class), "spawner");
        toMain.println(system.provider().getDefaultAddress().port().get());
        toMain.flush();
        while (System.in.read() >= 0) {
            // main writes nothing: read until it goes
        }
        Runtime.getRuntime().halt(0);
    }

    /** Pinned to one CPU (cores=1): the peers on the other online CPUs, highest first; else unpinned. */
    static String[] peerCpus(int k) throws IOException {
        String[] out = new String[k];
        java.util.Arrays.fill(out, "");
        String own = "";
        for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (l.startsWith("Cpus_allowed_list:")) own = l.substring(18).trim();
        }
        if (own.contains(",") || own.contains("-")) return out;
        List<Integer> others = new ArrayList<>();
        for (String r : Files.readString(Path.of("/sys/devices/system/cpu/online")).trim().split(",")) {
            String[] ab = r.split("-");
            for (int c = Integer.parseInt(ab[0]); c <= Integer.parseInt(ab[ab.length - 1]); c++) {
                if (c != Integer.parseInt(own)) others.add(0, c);
            }
        }
        if (others.isEmpty()) others.add(Integer.parseInt(own));
        for (int j = 1; j < k; j++) out[j] = Integer.toString(others.get((j - 1) % others.size()));
        return out;
    }
}
