package ringbench.pekko;

import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.Props;
import ringbench.pekko.Messages.Link;
import ringbench.pekko.Messages.Start;
import ringbench.pekko.Messages.Stop;
import ringbench.pekko.Messages.Token;

/** pingpong's two actors: A serves m round trips to B, which answers the sender of each. */
final class PingPong {
    private PingPong() {}

    /** A: on the start signal sends to B; each answer completes a round trip; after m it tells main. */
    static final class Ping extends AbstractActor {
        private final Run run;
        private final long m;
        private ActorRef peer;
        private long left;

        Ping(Run run, long m) {
            this.run = run;
            this.m = m;
        }

        static Props props(Run run, long m) {
            return Props.create(Ping.class, () -> new Ping(run, m));
        }

        @Override
        public Receive createReceive() {
            return receiveBuilder()
                    .match(Token.class, t -> {
                        if (--left == 0) run.finished.countDown();
                        else peer.tell(new Token(left), getSelf());
                    })
                    .match(Start.class, s -> {
                        left = m;
                        peer.tell(new Token(left), getSelf());
                    })
                    .match(Link.class, l -> {
                        peer = l.next();
                        run.ready.countDown();
                    })
                    .build();
        }
    }

    /** B: answers each message to its sender and counts the round trips; the proof's Stop asks the count. */
    static final class Pong extends AbstractActor {
        private final Run run;
        private long count;

        Pong(Run run) { this.run = run; }

        static Props props(Run run) {
            return Props.create(Pong.class, () -> new Pong(run));
        }

        @Override
        public Receive createReceive() {
            return receiveBuilder()
                    .match(Token.class, t -> {
                        count++;
                        getSender().tell(t, getSelf());
                    })
                    .match(Link.class, l -> run.ready.countDown())
                    .match(Stop.class, s -> run.sum.complete(count))
                    .build();
        }
    }
}
