package ringbench.pekko;

import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.Props;
import ringbench.pekko.Messages.Finished;
import ringbench.pekko.Messages.Link;
import ringbench.pekko.Messages.Stop;
import ringbench.pekko.Messages.Sum;
import ringbench.pekko.Messages.Token;

/**
 * A ring process (also spawn's idle process: the same actor, linked the same way).
 * A token of value v: one receipt; v = 1 tells the coordinator (its parent, or across nodes the
 * coordinator on node 0 that linked it) the token is finished, else
 * {@code next.tell(new Token(v - 1), self)}.
 */
final class RingActor extends AbstractActor {
    private ActorRef next, boss; // the successor, and the coordinator that linked this process
    private long count; // this process's receipts, for the proof

    static Props props() {
        return Props.create(RingActor.class, RingActor::new);
    }

    @Override
    public Receive createReceive() {
        return receiveBuilder()
                .match(Token.class, this::token)
                .match(Link.class, this::link)
                .match(Stop.class, this::stop)
                .build();
    }

    private void token(Token t) {
        count++;
        long v = t.value();
        if (v == 1) boss.tell(Finished.TOKEN, getSelf());
        else next.tell(new Token(v - 1), getSelf());
    }

    private void link(Link l) {
        next = l.next();
        boss = getSender();
        l.gate().arrive(); // linked: now waiting for its first token
    }

    /**
     * The proof: add this process's receipts (to the cross-node ones too when its predecessor, the Stop's
     * sender, is on another node), pass it on (the last one tells the coordinator) and exit.
     */
    private void stop(Stop s) {
        long sum = s.sum() + count, cross = s.cross() + (s.node() != Nodes.self ? count : 0);
        if (s.left() == 1) boss.tell(new Sum(sum, cross), getSelf());
        else next.tell(new Stop(sum, s.left() - 1, cross, Nodes.self), getSelf());
        getContext().stop(getSelf());
    }
}
