package ringbench.pekko;

import org.apache.pekko.actor.ActorRef;

/**
 * The messages: immutable values, one new object per send where a value changes (the Pekko Java idiom).
 * Main is not an actor: it asks an iteration's coordinator ({@link Parent}) or a tree's root with the
 * ask pattern, and each of its waits is the reply to one question.
 */
final class Messages {
    private Messages() {}

    /** Main to the coordinator (asked): spawn and link the processes; the reply is {@link Spawned}. */
    enum Spawn { ASK }

    /** The coordinator's reply once every process has signalled ready: the processes in order, and the count. */
    record Spawned(ActorRef[] procs, long ready) {}

    /** A process to its coordinator: linked, about to wait for its first message (one addition to the gate). */
    enum Ready { READY }

    /** Main, before a timed phase (asked): reply with a {@link Sum} once the phase has ended. */
    enum AwaitEnd { ASK }

    /** A process to its coordinator: a token finished (value 1), or the phase's count (pingpong, fanin). */
    record Finished(long value) {
        static final Finished TOKEN = new Finished(1);
    }

    /** Main to the coordinator (asked): send {@code stop} to process {@code at}; the reply is the proof's {@link Sum}. */
    record Prove(int at, Stop stop) {}

    /** Your successor (ring, trace, spawn) or your peer (pingpong, fanin), from the coordinator that spawned you. */
    record Link(ActorRef next) {}

    /** A ring token: the receipts it still has to make. */
    record Token(long value) {}

    /** A trace token: the receipts still to make and the index of the process that sent it (-1: main). */
    record TraceToken(long value, int from) {}

    /** The proof: the receipts counted so far, and the processes still to visit. */
    record Stop(long sum, int left) {}

    /** A sum: a tree node's for its parent, the proof's, or a coordinator's reply to main. */
    record Sum(long value) {}

    /** The start signal (pingpong's A, fanin's senders). */
    enum Start { GO }
}
