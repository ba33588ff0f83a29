package ringbench.pekko;

import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.Props;
import ringbench.pekko.Messages.Finished;
import ringbench.pekko.Messages.Link;
import ringbench.pekko.Messages.Start;
import ringbench.pekko.Messages.Stop;
import ringbench.pekko.Messages.Sum;
import ringbench.pekko.Messages.Token;

/** pingpong's two actors: A serves m round trips to B, which answers the sender of each. */
final class PingPong {
    private PingPong() {}

    /** A: on the start signal sends to B; each answer completes a round trip; after m it tells the coordinator. */
    static final class Ping extends AbstractActor {
        private final long m;
        private ActorRef peer;
        private long left;

        Ping(long m) {
            this.m = m;
        }

        static Props props(long m) {
            return Props.create(Ping.class, () -> new Ping(m));
        }

        @Override
        public Receive createReceive() {
            return receiveBuilder()
                    .match(Token.class, t -> {
                        if (--left == 0) getContext().getParent().tell(Finished.TOKEN, getSelf());
                        else peer.tell(new Token(left), getSelf());
                    })
                    .match(Start.class, s -> {
                        left = m;
                        peer.tell(new Token(left), getSelf());
                    })
                    .match(Link.class, l -> {
                        peer = l.next();
                        l.gate().arrive();
                    })
                    .build();
        }
    }

    /** B: answers each message to its sender and counts the round trips; the proof's Stop asks the count for the coordinator. */
    static final class Pong extends AbstractActor {
        private long count;

        static Props props() {
            return Props.create(Pong.class, Pong::new);
        }

        @Override
        public Receive createReceive() {
            return receiveBuilder()
                    .match(Token.class, t -> {
                        count++;
                        getSender().tell(t, getSelf());
                    })
                    .match(Link.class, l -> l.gate().arrive())
                    .match(Stop.class, s -> getContext().getParent().tell(new Sum(count), getSelf()))
                    .build();
        }
    }
}
