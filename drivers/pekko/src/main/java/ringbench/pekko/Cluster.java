package ringbench.pekko;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.Props;
import org.apache.pekko.actor.Terminated;
import ringbench.driver.Fail;
import ringbench.driver.Out;
import ringbench.pekko.Messages.Hello;

/**
 * The local nodes of a ring across nodes, from node 0 (the driver's JVM): it starts the K−1 peer JVMs
 * ({@link Peer}) with its own java, JVM options, class path and variant, each with {@code cores}
 * dispatcher threads, and pinned one per CPU apart from the driver's when the driver runs on one CPU
 * (taskset, as the other drivers of section 10). Each peer's stdin is a pipe from the driver: it halts
 * when that closes, so no node outlives the driver however it ends (SIGKILL included). Its stdout and
 * stderr are the driver's (stdout: only a trace's hop records). A peer starts Artery on a free loopback
 * port and says hello to the driver's registry actor, which watches the peer's host (remote DeathWatch);
 * the driver also watches each peer's OS process, so a node that dies ends the run at once.
 */
final class Cluster {
    /** How long a peer JVM may take to start and say hello (a loaded 2-core machine: a few seconds). */
    private static final long BOOT_S = 60;

    final int k, placement;
    final ActorRef[] hosts;
    final String[] names;
    private final Process[] peers;
    private final CompletableFuture<?>[] hello;
    private volatile boolean closing;
    boolean remote; // nodes the user started (--hosts): never stopped by this driver

    private Cluster(int k, int placement) {
        this.k = k;
        this.placement = placement;
        this.hosts = new ActorRef[k];
        this.names = new String[k];
        this.peers = new Process[k];
        this.hello = new CompletableFuture<?>[k];
    }

    /** The name of a node: its system's address (system@host:port). */
    static String name(ActorSystem system) {
        Address a = ((ExtendedActorSystem) system).provider().getDefaultAddress();
        return a.system() + "@" + a.host().get() + ":" + a.port().get();
    }

    /** Start nodes 1 … k−1 and wait until each has said hello (outside every timed phase). */
    static Cluster start(ActorSystem system, String variant, int cores, int k, int placement) {
        Cluster c = new Cluster(k, placement);
        c.names[0] = name(system);
        @SuppressWarnings({"unchecked", "rawtypes"})
        CompletableFuture<ActorRef>[] futures = new CompletableFuture[k];
        for (int j = 1; j < k; j++) c.hello[j] = futures[j] = new CompletableFuture<>();
        system.actorOf(Props.create(Registry.class, () -> new Registry(c, futures)), "registry");
        String[] cpus = cpus(k);
        for (int j = 1; j < k; j++) c.peers[j] = c.startPeer(j, variant, cores, cpus[j], c.names[0]);
        for (int j = 1; j < k; j++) {
            try {
                c.hosts[j] = futures[j].get(BOOT_S, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                throw Fail.failure("node " + j + " of " + k + " did not start within " + BOOT_S + " s (stderr has its output)");
            } catch (InterruptedException | ExecutionException e) {
                throw Fail.failure("node " + j + " of " + k + " could not start: " + e.getMessage());
            }
            c.names[j] = name(c.hosts[j]);
        }
        return c;
    }

    /** How long a node on another host may take to answer (reached over TLS, its host actor resolved). */
    private static final long REACH_S = 30;

    /**
     * Nodes the user started on other hosts (--hosts; contract section 10, "Nodes on other hosts"): node j
     * is the j-th of {@code hosts} ({@code name@host:port}); each host actor is resolved over Artery's TLS
     * transport, told its index and watched. A node that cannot be reached, or that does not complete the TLS
     * handshake with this one's key and trust stores, is bad input (bad_param), named, with no secret.
     * These nodes are left running: only this ring's agents on them are stopped.
     */
    static Cluster connect(ActorSystem system, List<String> hosts, int k, int placement) {
        if (hosts.size() != k - 1) {
            throw Fail.badParam("nodes=" + k + " but the cluster file names " + hosts.size() + " other node(s)");
        }
        Cluster c = new Cluster(k, placement);
        c.remote = true;
        c.names[0] = name(system);
        @SuppressWarnings({"unchecked", "rawtypes"})
        CompletableFuture<ActorRef>[] futures = new CompletableFuture[k];
        ActorRef registry = system.actorOf(Props.create(Registry.class, () -> new Registry(c, futures)), "registry");
        java.time.Duration patience = java.time.Duration.ofSeconds(REACH_S);
        for (int j = 1; j < k; j++) {
            String h = hosts.get(j - 1);
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("^([A-Za-z0-9_-]+)@([A-Za-z0-9._-]+):(\\d{1,5})$")
                    .matcher(h);
            if (!m.matches()) {
                throw Fail.badParam("node " + j + " of " + k + " is '" + h + "': a Pekko node is name@host:port (the "
                        + "port its peer listens on, README, \"Nodes on other hosts\")");
            }
            String path = "pekko://" + m.group(1) + "@" + m.group(2) + ":" + m.group(3) + "/user/host";
            try {
                ActorRef host = system.actorSelection(path).resolveOne(patience).toCompletableFuture()
                        .get(REACH_S + 5, TimeUnit.SECONDS);
                org.apache.pekko.pattern.Patterns.ask(host, new Messages.Assign(j), patience).toCompletableFuture()
                        .get(REACH_S + 5, TimeUnit.SECONDS);
                c.hello[j] = futures[j] = new CompletableFuture<>();
                registry.tell(new Hello(j), host); // the registry watches it, as a local peer's hello
                c.hosts[j] = futures[j].get(REACH_S, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException | InterruptedException e) {
                System.err.println("ringbench: node " + j + " (" + h + "): " + e); // stderr: what Pekko said
                throw Fail.badParam("node " + j + " of " + k + " (" + h + ") could not be reached within " + REACH_S
                        + " s over Artery's TLS transport: it is not running there, or its key and trust stores do "
                        + "not accept this node's (README, \"Nodes on other hosts\")");
            }
            c.names[j] = name(c.hosts[j]);
        }
        return c;
    }

    /** The name of the node of a host actor: its system's address (system@host:port). */
    private static String name(ActorRef host) {
        Address a = host.path().address();
        return a.system() + "@" + a.host().get() + ":" + a.port().get();
    }

    /** Node j's name as far as it is known (it said hello; a peer that has not, by its number). */
    @SuppressWarnings("unchecked")
    private String nameOf(int j) {
        ActorRef host = ((CompletableFuture<ActorRef>) hello[j]).getNow(null);
        return host != null ? name(host) : "ringbench-node-" + j;
    }

    private Process startPeer(int j, String variant, int cores, String cpu, String driver) {
        List<String> cmd = new ArrayList<>();
        if (!cpu.isEmpty()) cmd.addAll(List.of(taskset(), "-c", cpu));
        cmd.add(ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString()));
        cmd.addAll(jvmOptions());
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Peer.class.getName(), variant,
                Integer.toString(cores), Integer.toString(j), Integer.toString(k), driver));
        // The driver's environment, unchanged (section 10).
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.INHERIT)
                .redirectError(ProcessBuilder.Redirect.INHERIT);
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw Fail.failure("could not start node " + j + " of " + k + ": " + e.getMessage());
        }
        p.onExit().thenAccept(gone -> {
            if (closing) return;
            if (!hello[j].isDone()) {
                Out.die(Fail.failure("node " + j + " of " + k + " ended while starting (exit status " + gone.exitValue()
                        + "; stderr has its output)"));
            }
            int status = gone.exitValue();
            String why = status > 128 ? "killed by signal " + (status - 128) : "exit status " + status;
            Out.die(Fail.failure("node " + j + " of " + k + " (" + nameOf(j) + ") went down (its JVM, pid " + gone.pid()
                    + ", ended: " + why + "): its ring processes and any token they held are gone, so the run "
                    + "cannot finish"));
        });
        return p;
    }

    /**
     * The driver JVM's options for a peer: its input arguments, less those its options variables gave it
     * (JAVA_TOOL_OPTIONS, _JAVA_OPTIONS, JDK_JAVA_OPTIONS), which the peer reads from the same environment.
     */
    static List<String> jvmOptions() {
        List<String> opts = new ArrayList<>(ManagementFactory.getRuntimeMXBean().getInputArguments());
        for (String v : List.of("JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS")) {
            String value = System.getenv(v);
            if (value != null) for (String o : value.trim().split("\\s+")) opts.remove(o);
        }
        return opts;
    }

    /** After the last iteration: end the peers (they would end anyway when the driver's pipes close). */
    void close() {
        closing = true;
        if (!remote) for (Process p : peers) if (p != null) p.destroy();
    }

    /**
     * Where each node runs: when this JVM is pinned to one CPU (cores=1), node 0 there and the others on
     * the other online CPUs, highest first, round-robin when there are more nodes than CPUs; else "" (unpinned).
     */
    static String[] cpus(int k) {
        String[] out = new String[k];
        java.util.Arrays.fill(out, "");
        List<Integer> own = cpuList(status("Cpus_allowed_list:")), online = cpuList(read("/sys/devices/system/cpu/online"));
        if (own.size() != 1 || online.isEmpty()) return out;
        if (taskset() == null) {
            System.err.println("ringbench: taskset not found: the other nodes are not pinned");
            return out;
        }
        List<Integer> order = new ArrayList<>(own);
        online.stream().filter(c -> !own.contains(c)).sorted(java.util.Comparator.reverseOrder()).forEach(order::add);
        for (int j = 0; j < k; j++) out[j] = Integer.toString(order.get(j % order.size()));
        if (k > order.size()) {
            System.err.println("ringbench: " + k + " nodes on " + order.size() + " CPUs: nodes share CPUs (pinned "
                    + "round-robin: " + String.join(",", out) + ")");
        }
        return out;
    }

    private static String taskset() {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, "taskset");
            if (Files.isExecutable(p)) return p.toString();
        }
        return null;
    }

    private static String read(String path) {
        try {
            return Files.readString(Path.of(path)).trim();
        } catch (IOException e) {
            return "";
        }
    }

    private static String status(String key) {
        for (String l : read("/proc/self/status").split("\n")) if (l.startsWith(key)) return l.substring(key.length()).trim();
        return "";
    }

    /** "0-3,6" → [0, 1, 2, 3, 6]. */
    static List<Integer> cpuList(String text) {
        List<Integer> out = new ArrayList<>();
        if (text.isEmpty()) return out;
        for (String r : text.split(",")) {
            String[] ab = r.split("-");
            int a = Integer.parseInt(ab[0].trim()), b = ab.length > 1 ? Integer.parseInt(ab[1].trim()) : a;
            for (int c = a; c <= b; c++) out.add(c);
        }
        return out;
    }

    /**
     * /user/registry on node 0: each peer's host says {@link Hello}; the registry watches it (remote
     * DeathWatch), so a node whose connection is lost ends the run too, naming it.
     */
    static final class Registry extends AbstractActor {
        private final Cluster c;
        private final CompletableFuture<ActorRef>[] futures;

        Registry(Cluster c, CompletableFuture<ActorRef>[] futures) {
            this.c = c;
            this.futures = futures;
        }

        @Override
        public Receive createReceive() {
            return receiveBuilder()
                    .match(Hello.class, h -> {
                        getContext().watch(getSender());
                        futures[h.node()].complete(getSender());
                    })
                    .match(Terminated.class, t -> {
                        if (c.closing) return;
                        for (int j = 1; j < c.k; j++) {
                            if (t.getActor().equals(c.hosts[j]) || futures[j] != null && t.getActor().equals(futures[j].getNow(null))) {
                                Out.die(Fail.failure("node " + j + " of " + c.k + " (" + c.nameOf(j) + ") went down "
                                        + "(its host actor terminated, existence confirmed " + t.existenceConfirmed()
                                        + ", address terminated " + t.addressTerminated() + "): its ring processes and "
                                        + "any token they held are gone, so the run cannot finish"));
                            }
                        }
                    })
                    .build();
        }
    }
}
