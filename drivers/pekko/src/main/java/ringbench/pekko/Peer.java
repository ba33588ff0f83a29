package ringbench.pekko;

import java.io.IOException;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ActorSystem;
import ringbench.pekko.Messages.Hello;

/**
 * A peer node of a ring across nodes, started by the driver ({@link Cluster}): {@code Peer <variant>
 * <cores> <node> <nodes> <driver system@host:port>}. Its ActorSystem has the driver's variant settings and
 * {@code cores} dispatcher threads, Artery on a free loopback port; its host actor says hello to the
 * driver's registry. It halts when its stdin (a pipe from the driver) closes: it never outlives the driver.
 */
public final class Peer {
    private Peer() {}

    /**
     * A node the user starts on another host for --hosts (README, "Nodes on other hosts"): {@code run.sh peer
     * <settings file> [cores]}. Its system, "ringbench", listens where the file says (canonical host and port)
     * over Artery's TLS transport with the file's key and trust stores, the stock variant's settings and
     * {@code cores} dispatcher threads (default: the CPUs); its host actor waits for drivers. It runs until
     * stopped (Ctrl-C): a driver that takes it leaves it running.
     */
    static void user(String[] args) {
        if (args.length < 2 || args.length > 3) {
            System.err.println("usage: run.sh peer <TLS settings file> [cores]");
            Runtime.getRuntime().halt(2);
        }
        try {
            int cores = args.length == 3 ? Integer.parseInt(args[2]) : Runtime.getRuntime().availableProcessors();
            Nodes.cores = cores;
            ActorSystem system = ActorSystem.create("ringbench", Nodes.tls(Main.config("stock", cores), args[1]));
            system.registerOnTermination(() -> Runtime.getRuntime().halt(1));
            system.actorOf(NodeHost.props(Cluster.name(system)), "host");
            System.err.println("ringbench pekko peer: node " + Cluster.name(system) + " (Artery TLS), " + cores
                    + " dispatcher threads; give it to ringbench as --hosts " + Cluster.name(system));
        } catch (IllegalArgumentException e) {
            System.err.println("run.sh peer: " + e.getMessage());
            Runtime.getRuntime().halt(2);
        }
    }

    public static void main(String[] args) {
        // Pekko's own logger prints to System.out; stdout is the driver's and carries records only.
        System.setOut(System.err);
        Thread watch = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // the driver writes nothing: read until it goes
                }
            } catch (IOException e) {
                // the pipe is gone: so is the driver
            }
            Runtime.getRuntime().halt(0);
        }, "driver-watch");
        watch.setDaemon(true);
        watch.start();
        try {
            String variant = args[0];
            int cores = Integer.parseInt(args[1]), node = Integer.parseInt(args[2]);
            Nodes.self = node;
            Nodes.across = true;
            Nodes.cores = cores;
            ActorSystem system = ActorSystem.create("ringbench", Nodes.remote(Main.config(variant, cores)));
            // A fatal error in an actor ends the system: end the JVM too, so that the driver sees the node go.
            system.registerOnTermination(() -> Runtime.getRuntime().halt(1));
            ActorRef host = system.actorOf(NodeHost.props(Cluster.name(system)), "host");
            system.actorSelection("pekko://" + args[4] + "/user/registry").tell(new Hello(node), host);
        } catch (RuntimeException | LinkageError e) {
            e.printStackTrace();
            Runtime.getRuntime().halt(1);
        }
    }
}
