package ringbench.pekko;

import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.Props;
import ringbench.pekko.Messages.SpawnOn;
import ringbench.pekko.Messages.SpawnedOn;
import ringbench.pekko.Messages.View;
import ringbench.pekko.Messages.ViewStart;

/**
 * The actor of a peer node (/user/host) through which the driver's coordinator places ring processes on
 * it: asked to {@link SpawnOn}, it spawns them as its children and replies with their references, in
 * chunks. Each process reports to the coordinator that links it (the {@code Link}'s sender), not to
 * this host. It also answers the cluster view's questions for its node.
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
                .match(ViewStart.class, v -> {
                    Nodes.startView();
                    getSender().tell(v, getSelf()); // started
                })
                .match(View.class, v -> getSender().tell(Nodes.view(name, inRing), getSelf()))
                .build();
    }

    private void spawn(SpawnOn s) {
        inRing += s.count();
        Props ring = RingActor.props(), loop = LoopActor.props(null);
        for (int c = 0; c < s.count(); c += SpawnOn.CHUNK) {
            ActorRef[] procs = new ActorRef[Math.min(SpawnOn.CHUNK, s.count() - c)];
            for (int x = 0; x < procs.length; x++) {
                int i = s.first() + (c + x) * s.step();
                Props p = switch (s.kind()) {
                    case RING -> ring;
                    case TRACE -> TraceActor.props(i, s.n(), s.total(), s.print());
                    // The node's lowest-indexed process counts the laps passing it (the cluster view).
                    case LOOP -> c + x == 0 ? LoopActor.props(Nodes.LAPS) : loop;
                };
                procs[x] = getContext().actorOf(p);
            }
            getSender().tell(new SpawnedOn(s.first() + c * s.step(), s.step(), procs), getSelf());
        }
    }
}
