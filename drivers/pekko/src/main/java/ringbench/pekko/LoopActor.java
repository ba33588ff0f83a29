package ringbench.pekko;

import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.Props;
import ringbench.pekko.Messages.Link;
import ringbench.pekko.Messages.Token;

/**
 * A ring process of continuous mode: tokens never finish; p0 adds one lap per token passing it to a
 * counter main's sampler reads (continuous mode samples a running ring: no message asks for it).
 */
final class LoopActor extends AbstractActor {
    private final AtomicLong laps; // only p0's (across nodes: each node's first process's) is non-null
    private ActorRef next;
    private boolean fromOther, toOther; // across nodes: the predecessor's, the successor's node is another

    LoopActor(AtomicLong laps) {
        this.laps = laps;
    }

    static Props props(AtomicLong laps) {
        return Props.create(LoopActor.class, () -> new LoopActor(laps));
    }

    @Override
    public Receive createReceive() {
        return receiveBuilder()
                .match(Token.class, this::token)
                .match(Link.class, this::link)
                .build();
    }

    private void token(Token t) {
        if (laps != null) laps.getAndIncrement();
        if (fromOther) Nodes.DIST_IN.increment();
        if (toOther) Nodes.DIST_OUT.increment();
        next.tell(new Token(t.value() - 1), getSelf()); // a new message per hop, as in the ring
    }

    private void link(Link l) {
        next = l.next();
        fromOther = l.fromOther();
        toOther = next.path().address().hasGlobalScope(); // a reference to another system's actor
        l.gate().arrive(); // the gate of the coordinator that linked it
    }
}
