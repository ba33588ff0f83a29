package ringbench.pekko;

import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.Props;
import ringbench.pekko.Messages.Finished;
import ringbench.pekko.Messages.Link;
import ringbench.pekko.Messages.Start;
import ringbench.pekko.Messages.Token;

/** fanin's actors: n senders, m messages each, to one receiver that tells the coordinator at n·m. */
final class FanIn {
    private FanIn() {}

    /** The receiver: counts; at the last expected message gives the coordinator the count. */
    static final class Receiver extends AbstractActor {
        private final long total;
        private long got;

        Receiver(long total) {
            this.total = total;
        }

        static Props props(long total) {
            return Props.create(Receiver.class, () -> new Receiver(total));
        }

        @Override
        public Receive createReceive() {
            return receiveBuilder()
                    .match(Token.class, t -> {
                        if (++got == total) getContext().getParent().tell(new Finished(got), getSelf());
                    })
                    .match(Link.class, l -> l.gate().arrive())
                    .build();
        }
    }

    /** A sender: on the start signal tells the receiver m messages, then exits. */
    static final class Sender extends AbstractActor {
        private final long m;
        private ActorRef rx;

        Sender(long m) {
            this.m = m;
        }

        static Props props(long m) {
            return Props.create(Sender.class, () -> new Sender(m));
        }

        @Override
        public Receive createReceive() {
            return receiveBuilder()
                    .match(Start.class, s -> {
                        final ActorRef rx = this.rx, self = getSelf();
                        for (long k = m; k > 0; k--) rx.tell(new Token(k), self);
                        getContext().stop(self);
                    })
                    .match(Link.class, l -> {
                        rx = l.next();
                        l.gate().arrive();
                    })
                    .build();
        }
    }
}
