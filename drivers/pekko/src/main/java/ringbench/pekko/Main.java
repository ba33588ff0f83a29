package ringbench.pekko;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.util.List;
import org.apache.pekko.actor.ActorSystem;
import ringbench.driver.Across;
import ringbench.driver.Description;
import ringbench.driver.Fail;
import ringbench.driver.Out;
import ringbench.driver.Params;
import ringbench.driver.Workloads;

/** pekko: one classic actor (AbstractActor) per process, tell to the successor's ActorRef. */
public final class Main {
    static final String NO_SELECTIVE = "Pekko classic actors have no selective receive: an actor takes its mailbox "
            + "in arrival order, one message per invocation, and Stash only sets a message aside to re-enqueue it "
            + "later; a receive that skips non-matching messages would be an emulation, not the runtime's own";

    private static final Description DESCRIPTION = new Description("pekko", "Pekko",
            org.apache.pekko.Version.current() + " (Scala " + scala.util.Properties.versionNumberString()
                    + ", JDK " + Runtime.version() + ")",
            Description.STANDARD, List.of("tokens", "continuous", "stats", "nodes"), List.of("stock", "tuned"), false,
            NO_SELECTIVE);

    /** The systems batch ended on purpose after their line: their end is no error. */
    static final java.util.Set<ActorSystem> RELEASED = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private Main() {}

    public static void main(String[] args) {
        // Pekko's own logger prints to System.out; stdout carries the records only (Out writes to fd 1).
        System.setOut(System.err);
        if (args.length > 0 && args[0].equals("peer")) {
            Peer.user(args);
            return;
        }
        Across.serve(args, DESCRIPTION, Main::prepare, Main::prepareAcross);
    }

    /** The settings of a variant, over Pekko's reference.conf (no application.conf is read). */
    static Config config(String variant, int cores) {
        String s = ""
                // The default dispatcher (fork-join) sized to the contract's cores: reference.conf's
                // ceil(cores × 1.0) clamped to [8, 64] would run 8 threads on a 1- or 2-core run.
                + "pekko.actor.default-dispatcher.fork-join-executor.parallelism-min = " + cores + "\n"
                + "pekko.actor.default-dispatcher.fork-join-executor.parallelism-max = " + cores + "\n"
                // A fatal error (OutOfMemoryError) in an actor ends the ActorSystem instead of calling
                // System.exit(-1), so that the driver can print its error record (prepare).
                + "pekko.jvm-exit-on-fatal-error = off\n";
        if (variant.equals("tuned")) {
            // README: Pekko's dispatcher documentation, "throughput" (messages per actor per turn).
            s += "pekko.actor.default-dispatcher.throughput = 100\n"
                    // README: the mailbox's API documentation; Savina's Akka configuration sets it.
                    + "pekko.actor.default-mailbox.mailbox-type = "
                    + "\"org.apache.pekko.dispatch.SingleConsumerOnlyUnboundedMailbox\"\n";
        }
        return ConfigFactory.parseString(s).withFallback(ConfigFactory.defaultReference());
    }

    private static Workloads prepare(String variant, Params p) {
        return new PekkoWorkloads(system(variant, config(variant, p.cores())));
    }

    /**
     * A ring across k nodes (README, "A ring across nodes"): one node is this system as prepare's; more,
     * this system with Artery remoting as node 0 and k − 1 peer JVMs started and connected (untimed).
     */
    private static Across.Spread prepareAcross(String variant, Params p, int k, int placement) {
        Nodes.cores = p.cores();
        if (k == 1) return new PekkoWorkloads(system(variant, config(variant, p.cores())));
        Nodes.across = true;
        String clusterFile = System.getenv("RINGBENCH_CLUSTER");
        if (clusterFile == null || clusterFile.isEmpty()) {
            ActorSystem system = system(variant, Nodes.remote(config(variant, p.cores())));
            return new PekkoWorkloads(system, Cluster.start(system, variant, p.cores(), k, placement));
        }
        // Nodes the user started on other hosts (--hosts): the cluster file's hosts= line (its cookie= is
        // Erlang's and ignored), reached over Artery's TLS transport with the settings of the user's file
        // ($XDG_CONFIG_HOME/ringbench/pekko-tls.conf, ~/.config by default: no variable, no command line).
        List<String> hosts = new java.util.ArrayList<>();
        try {
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of(clusterFile))) {
                if (line.startsWith("hosts=")) for (String h : line.substring(6).split(",")) if (!h.isBlank()) hosts.add(h.trim());
            }
        } catch (java.io.IOException e) {
            throw Fail.badParam("cannot read the cluster file " + clusterFile + ": " + e.getClass().getSimpleName());
        }
        String xdg = System.getenv("XDG_CONFIG_HOME");
        String tls = (xdg == null || xdg.isEmpty() ? System.getProperty("user.home") + "/.config" : xdg)
                + "/ringbench/pekko-tls.conf";
        if (!new java.io.File(tls).isFile()) {
            throw Fail.badParam("nodes on other hosts need Artery's TLS transport: no settings file " + tls
                    + " (README, \"Nodes on other hosts\")");
        }
        Config settings;
        try {
            settings = Nodes.tls(config(variant, p.cores()), tls);
        } catch (IllegalArgumentException e) {
            throw Fail.badParam(e.getMessage());
        }
        ActorSystem system = system(variant, settings);
        return new PekkoWorkloads(system, Cluster.connect(system, hosts, k, placement));
    }

    private static ActorSystem system(String variant, Config config) {
        ActorSystem system = ActorSystem.create("ringbench", config);
        // The ActorSystem ends only after a fatal error in an actor: the run is lost, say why.
        system.registerOnTermination(() -> {
            if (RELEASED.contains(system)) return; // ended by batch after its line (PekkoWorkloads.release)
            Runtime rt = Runtime.getRuntime();
            long used = rt.totalMemory() - rt.freeMemory();
            if (used > rt.maxMemory() / 10 * 9) {
                Out.die(Fail.limit("the ActorSystem ended after a fatal error with the Java heap full (" + (used >> 20)
                        + " of " + (rt.maxMemory() >> 20) + " MiB): raise its maximum (-Xmx, set by ringbench through "
                        + "the manifest's [limits.heap] for a cell that needs it) or use a smaller n"));
            }
            Out.die(Fail.failure("the ActorSystem ended after a fatal error in an actor (stderr has it)"));
        });
        return system;
    }
}
