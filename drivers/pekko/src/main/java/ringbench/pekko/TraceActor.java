package ringbench.pekko;

import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.Props;
import ringbench.driver.Out;
import ringbench.pekko.Messages.Finished;
import ringbench.pekko.Messages.Link;
import ringbench.pekko.Messages.Stop;
import ringbench.pekko.Messages.Sum;
import ringbench.pekko.Messages.TraceToken;

/** A trace process: the ring process that prints each hop, from inside itself, as it happens. */
final class TraceActor extends AbstractActor {
    private final int idx, n;
    private final long total;
    private final boolean print;
    private ActorRef next, boss;
    private long count;

    TraceActor(int idx, int n, long total, boolean print) {
        this.idx = idx;
        this.n = n;
        this.total = total;
        this.print = print;
    }

    static Props props(int idx, int n, long total, boolean print) {
        return Props.create(TraceActor.class, () -> new TraceActor(idx, n, total, print));
    }

    @Override
    public Receive createReceive() {
        return receiveBuilder()
                .match(TraceToken.class, this::token)
                .match(Link.class, l -> {
                    next = l.next();
                    boss = getSender();
                    l.gate().arrive(); // linked: now waiting for its first token
                })
                .match(Stop.class, this::stop)
                .build();
    }

    private void token(TraceToken t) {
        count++;
        long v = t.value(), hop = total - v + 1;
        if (print && Nodes.across) {
            // Across nodes (a peer's stdout is the driver's): the receiver's node too.
            Out.line("{\"type\":\"hop\",\"hop\":" + hop + ",\"lap\":" + ((hop - 1) / n + 1) + ",\"from\":" + t.from()
                    + ",\"to\":" + idx + ",\"node\":" + Nodes.self + "}");
        } else if (print) {
            Out.hop(hop, (hop - 1) / n + 1, t.from(), idx);
        }
        if (v == 1) boss.tell(Finished.TOKEN, getSelf());
        else next.tell(new TraceToken(v - 1, idx), getSelf());
    }

    private void stop(Stop s) {
        long sum = s.sum() + count, cross = s.cross() + (s.node() != Nodes.self ? count : 0);
        if (s.left() == 1) boss.tell(new Sum(sum, cross), getSelf());
        else next.tell(new Stop(sum, s.left() - 1, cross, Nodes.self), getSelf());
        getContext().stop(getSelf());
    }
}
