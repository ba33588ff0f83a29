package ringbench.pekko;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import ringbench.driver.Meter;
import ringbench.pekko.Messages.NodeView;

/**
 * What every node of a ring across nodes shares (contract section 10; README, "A ring across nodes"):
 * where process i lives, the remoting settings, and this JVM's node index and counters for the
 * cluster view. One JVM is one node, one ActorSystem.
 */
final class Nodes {
    private Nodes() {}

    /** This JVM's node index (0: the driver's). */
    static volatile int self;
    /** The ring spans more than one node: trace records name the receiver's node. */
    static volatile boolean across;
    /** The scheduler threads of this node's default dispatcher (the cluster view's sched_total). */
    static volatile int cores = 1;

    /** Laps counted by this node's lowest-indexed process of a continuous ring. */
    static final AtomicLong LAPS = new AtomicLong();
    /** Tokens received from another node, and sent to another node, by this node's ring processes. */
    static final LongAdder DIST_IN = new LongAdder(), DIST_OUT = new LongAdder();

    private static volatile long viewNs, viewCpu;

    /** The node of process i of a ring of n over k nodes: contiguous blocks (0) or interleaved (1). */
    static int nodeOf(int i, int n, int k, int placement) {
        return placement == 0 ? (int) ((long) i * k / n) : i % k;
    }

    /** The processes of node j: {first, step, count}. */
    static int[] indices(int j, int n, int k, int placement) {
        if (placement == 1) return new int[] {j, k, j < n ? (n - j + k - 1) / k : 0};
        int first = (int) (((long) j * n + k - 1) / k), end = (int) (((long) (j + 1) * n + k - 1) / k);
        return new int[] {first, 1, end - first};
    }

    /**
     * A system that is a node: Artery over TCP on the loopback interface at a free port, the ring's
     * messages bound to {@link WireSerializer}, remote watch on (the driver watches each node's host).
     */
    static Config remote(Config base) {
        String s = ""
                + "pekko.actor.provider = remote\n"
                + "pekko.remote.artery.transport = tcp\n"
                + "pekko.remote.artery.canonical.hostname = \"127.0.0.1\"\n"
                + "pekko.remote.artery.canonical.port = 0\n"
                // Remote watch (the driver's DeathWatch of each node's host) outside Pekko Cluster.
                + "pekko.remote.use-unsafe-remote-features-outside-cluster = on\n"
                + "pekko.remote.warn-about-direct-use = off\n"
                + "pekko.actor.serializers.ringbench = \"ringbench.pekko.WireSerializer\"\n"
                + "pekko.actor.serialization-bindings {\n"
                + "  \"ringbench.pekko.Messages$Wire\" = ringbench\n"
                + "}\n"
                // A node ends at once when its driver goes: no coordinated shutdown on SIGTERM.
                + "pekko.coordinated-shutdown.run-by-jvm-shutdown-hook = off\n"
                // Nodes leaving at the end are expected: no warnings about their associations.
                + "pekko.log-dead-letters = off\n"
                + "pekko.log-dead-letters-during-shutdown = off\n";
        return ConfigFactory.parseString(s).withFallback(base);
    }

    /**
     * A system of a ring over nodes on other hosts (--hosts; README, "Nodes on other hosts"): {@link #remote}
     * with Artery's TLS transport ({@code tls-tcp}, always), over which the settings of the user's file go
     * (its key store, trust store and their passwords, mutual authentication; its canonical host and port).
     * The file is read here and nowhere else; its content is never printed.
     */
    static Config tls(Config base, String file) {
        java.io.File f = new java.io.File(file);
        if (!f.canRead()) throw new IllegalArgumentException("cannot read the TLS settings file " + file);
        Config user;
        try {
            user = ConfigFactory.parseFile(f);
        } catch (com.typesafe.config.ConfigException e) {
            throw new IllegalArgumentException("the TLS settings file " + file + " is not HOCON (line "
                    + (e.origin() == null ? "?" : e.origin().lineNumber()) + ")");
        }
        if (!user.hasPath("pekko.remote.artery.ssl.config-ssl-engine.key-store")) {
            throw new IllegalArgumentException("the TLS settings file " + file
                    + " sets no pekko.remote.artery.ssl.config-ssl-engine.key-store (README, \"Nodes on other hosts\")");
        }
        return ConfigFactory.parseString("pekko.remote.artery.transport = tls-tcp\n")
                .withFallback(user).withFallback(remote(base)).resolve();
    }

    /** The cluster view's clocks start now (continuous mode, just before the tokens go in). */
    static void startView() {
        viewCpu = Meter.cpu();
        viewNs = System.nanoTime();
    }

    /** This node's view (contract section 10), in the order of {@link NodeView#FIELDS}. */
    static NodeView view(String name, long inRing) {
        long elapsed = System.nanoTime() - viewNs, cpu = Meter.cpu();
        // The heap's used bytes in one reading: totalMemory() - freeMemory() reads twice, and a heap that
        // grows between the two made it negative (-162 MB in a fresh-clone test run under load).
        long heapUsed = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        return new NodeView(name, new long[] {inRing, elapsed, LAPS.get(), Math.max(0, cpu - viewCpu),
            elapsed * cores, DIST_IN.sum(), DIST_OUT.sum(), heapUsed, inRing, cpu});
    }
}
