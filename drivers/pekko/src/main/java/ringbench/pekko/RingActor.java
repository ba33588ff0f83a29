package ringbench.pekko;

import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.Props;
import ringbench.pekko.Messages.Finished;
import ringbench.pekko.Messages.Link;
import ringbench.pekko.Messages.Ready;
import ringbench.pekko.Messages.Stop;
import ringbench.pekko.Messages.Sum;
import ringbench.pekko.Messages.Token;

/**
 * A ring process (also spawn's idle process: the same actor, linked the same way).
 * A token of value v: one receipt; v = 1 tells the coordinator (its parent) the token is finished, else
 * {@code next.tell(new Token(v - 1), self)}.
 */
final class RingActor extends AbstractActor {
    private ActorRef next;
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
        if (v == 1) getContext().getParent().tell(Finished.TOKEN, getSelf());
        else next.tell(new Token(v - 1), getSelf());
    }

    private void link(Link l) {
        next = l.next();
        getContext().getParent().tell(Ready.READY, getSelf()); // linked: now waiting for its first token
    }

    /** The proof: add this process's receipts, pass it on (the last one tells the coordinator) and exit. */
    private void stop(Stop s) {
        long sum = s.sum() + count;
        if (s.left() == 1) getContext().getParent().tell(new Sum(sum), getSelf());
        else next.tell(new Stop(sum, s.left() - 1), getSelf());
        getContext().stop(getSelf());
    }
}
