package ringbench.pekko;

import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.Props;
import ringbench.pekko.Messages.Link;
import ringbench.pekko.Messages.Start;
import ringbench.pekko.Messages.Token;

/** fanin's actors: n senders, m messages each, to one receiver that tells main at n·m. */
final class FanIn {
    private FanIn() {}

    /** The receiver: counts; at the last expected message gives main the count. */
    static final class Receiver extends AbstractActor {
        private final Run run;
        private final long total;
        private long got;

        Receiver(Run run, long total) {
            this.run = run;
            this.total = total;
        }

        static Props props(Run run, long total) {
            return Props.create(Receiver.class, () -> new Receiver(run, total));
        }

        @Override
        public Receive createReceive() {
            return receiveBuilder()
                    .match(Token.class, t -> {
                        if (++got == total) run.sum.complete(got);
                    })
                    .match(Link.class, l -> run.ready.countDown())
                    .build();
        }
    }

    /** A sender: on the start signal tells the receiver m messages, then exits. */
    static final class Sender extends AbstractActor {
        private final Run run;
        private final long m;
        private ActorRef rx;

        Sender(Run run, long m) {
            this.run = run;
            this.m = m;
        }

        static Props props(Run run, long m) {
            return Props.create(Sender.class, () -> new Sender(run, m));
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
                        run.ready.countDown();
                    })
                    .build();
        }
    }
}
