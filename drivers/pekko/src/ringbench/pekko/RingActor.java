package ringbench.pekko;

import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.Props;
import ringbench.pekko.Messages.Link;
import ringbench.pekko.Messages.Stop;
import ringbench.pekko.Messages.Token;

/**
 * A ring process (also spawn's idle process: the same actor, linked the same way).
 * A token of value v: one receipt; v = 1 tells main the token is finished, else
 * {@code next.tell(new Token(v - 1), self)}.
 */
final class RingActor extends AbstractActor {
    private final Run run;
    private ActorRef next;
    private long count; // this process's receipts, for the proof

    RingActor(Run run) { this.run = run; }

    static Props props(Run run) {
        return Props.create(RingActor.class, () -> new RingActor(run));
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
        if (v == 1) run.finished.countDown();
        else next.tell(new Token(v - 1), getSelf());
    }

    private void link(Link l) {
        next = l.next();
        run.ready.countDown(); // linked: now waiting for its first token
    }

    /** The proof: add this process's receipts, pass it on (the last one tells main) and exit. */
    private void stop(Stop s) {
        long sum = s.sum() + count;
        if (s.left() == 1) run.sum.complete(sum);
        else next.tell(new Stop(sum, s.left() - 1), getSelf());
        getContext().stop(getSelf());
    }
}
