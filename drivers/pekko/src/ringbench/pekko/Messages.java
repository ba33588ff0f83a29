package ringbench.pekko;

import org.apache.pekko.actor.ActorRef;

/** The messages: immutable values, one new object per send where a value changes (the Pekko Java idiom). */
final class Messages {
    private Messages() {}

    /** Your successor (ring, trace, spawn) or your peer (pingpong, fanin), from the parent that spawned you. */
    record Link(ActorRef next) {}

    /** A ring token: the receipts it still has to make. */
    record Token(long value) {}

    /** A trace token: the receipts still to make and the index of the process that sent it (-1: main). */
    record TraceToken(long value, int from) {}

    /** The proof: the receipts counted so far, and the processes still to visit. */
    record Stop(long sum, int left) {}

    /** A tree node's sum for its parent. */
    record Sum(long value) {}

    /** The start signal (pingpong's A, fanin's senders). */
    enum Start { GO }
}
