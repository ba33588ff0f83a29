package ringbench.pekko;

import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.actor.Props;
import ringbench.pekko.Messages.Assign;
import ringbench.pekko.Messages.SpawnOn;
import ringbench.pekko.Messages.View;
import ringbench.pekko.Messages.ViewStart;

/**
 * The actor of a peer node (/user/host) through which the driver's coordinator places ring processes on
 * it: asked to {@link SpawnOn}, it makes a {@link NodeAgent} for that ring and forwards the request to it
 * (the agent spawns the processes, replies with their references and links them). It also answers the
 * cluster view's questions for its node.
 */
final class NodeHost extends AbstractActor {
    private final String name;
    private long inRing;

    NodeHost(String name) { this.name = name; }

    static Props props(String name) {
        return Props.create(NodeHost.class, () -> new NodeHost(name));
    }

    @Override
    public Receive createReceive() {
        return receiveBuilder()
                .match(SpawnOn.class, this::spawn)
                .match(Assign.class, a -> {
                    // A node the user started (--hosts), taken by a driver: its index in that driver's ring.
                    Nodes.self = a.node();
                    Nodes.across = true;
                    inRing = 0;
                    getSender().tell(a, getSelf());
                })
                .match(ViewStart.class, v -> {
                    Nodes.startView();
                    getSender().tell(v, getSelf()); // started
                })
                .match(View.class, v -> getSender().tell(Nodes.view(name, inRing), getSelf()))
                .build();
    }

    /** One agent per ring: it spawns the node's block of processes and is their local coordinator. */
    private void spawn(SpawnOn s) {
        inRing += s.count();
        getContext().actorOf(NodeAgent.props()).forward(s, getContext());
    }
}
