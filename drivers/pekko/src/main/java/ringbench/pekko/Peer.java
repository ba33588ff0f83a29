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
