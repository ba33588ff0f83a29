package ringbench.pekko;

import org.apache.pekko.actor.ActorRef;

/**
 * The messages: immutable values, one new object per send where a value changes (the Pekko Java idiom).
 * Main is not an actor: it asks an iteration's coordinator ({@link Parent}) or a tree's root with the
 * ask pattern, and each of its waits is the reply to one question.
 */
final class Messages {
    private Messages() {}

    /**
     * A message that may cross between the nodes of a ring across nodes (README, "A ring across nodes"):
     * bound to {@link WireSerializer} in the configuration of a system with remoting. Within one JVM
     * Pekko passes the object itself, serialized by nobody.
     */
    interface Wire {}

    /** Main to the coordinator (asked): spawn and link the processes; the reply is {@link Spawned}. */
    enum Spawn { ASK }

    /**
     * The coordinator's reply once it has told every process its {@link Link}: the processes in order. The
     * spawn phase ends at the gate, not at this reply (main waits for it after the clock has stopped).
     */
    record Spawned(ActorRef[] procs) {}

    /** Main, before a timed phase (asked): reply with a {@link Sum} once the phase has ended. */
    enum AwaitEnd { ASK }

    /** A process to its coordinator: a token finished (value 1), or the phase's count (pingpong, fanin). */
    record Finished(long value) implements Wire {
        static final Finished TOKEN = new Finished(1);
    }

    /** Main to the coordinator (asked): send {@code stop} to process {@code at}; the reply is the proof's {@link Sum}. */
    record Prove(int at, Stop stop) {}

    /**
     * Your successor (ring, trace, spawn) or your peer (pingpong, fanin), from the coordinator that spawned you
     * (the Link's sender, to which a process reports), and the gate you arrive at once linked, about to wait
     * for your first message. {@code fromOther}: your predecessor is on another node. Never sent between
     * nodes (a node's agent links its own processes), so not a {@link Wire} message: the gate is one JVM's.
     */
    record Link(ActorRef next, boolean fromOther, Gate gate) {}

    /** A ring token: the receipts it still has to make. */
    record Token(long value) implements Wire {}

    /** A trace token: the receipts still to make and the index of the process that sent it (-1: main). */
    record TraceToken(long value, int from) implements Wire {}

    /**
     * The proof: the receipts counted so far, the processes still to visit, and across nodes the receipts
     * of the processes whose predecessor is on another node so far and the node of its sender.
     */
    record Stop(long sum, int left, long cross, int node) implements Wire {
        Stop(long sum, int left) { this(sum, left, 0, 0); }
    }

    /** A sum: a tree node's for its parent, the proof's (with its cross-node receipts), or a coordinator's reply to main. */
    record Sum(long value, long cross) implements Wire {
        Sum(long value) { this(value, 0); }
    }

    /**
     * A tree node's first message, from its parent (the root's from main): cover the leaves lo … lo+size-1
     * with {@code fanout} children a node; {@code root}: answer main's ask, not a parent.
     */
    record Cover(int lo, int size, int fanout, boolean root) {}

    /** The kinds of ring process a node's host spawns (ring, trace, continuous mode's). */
    enum Kind { RING, TRACE, LOOP }

    /**
     * Coordinator to a node's host: spawn ring processes first, first + step, … ({@code count} of them) of a
     * ring of n, of one kind (trace: its total receipts and whether it prints). The host's new agent for the
     * ring replies, with {@link SpawnedOn}s of {@link #CHUNK} processes at most each (Artery's frames are
     * 256 KiB at most).
     */
    record SpawnOn(Kind kind, int n, long total, boolean print, int first, int step, int count) implements Wire {
        static final int CHUNK = 512;
    }

    /** A node's agent's reply (its sender is the agent): processes first, first + step, … in order. */
    record SpawnedOn(int first, int step, ActorRef[] procs) implements Wire {}

    /**
     * Coordinator to a node's agent, once every node's processes are known: link your processes first,
     * first + step, … to the successors {@code next} (in that order, {@link SpawnOn#CHUNK} at most a
     * message) of a ring of n over k nodes placed by {@code placement}. The agent links each of them
     * locally and counts their arrivals.
     */
    record LinkOn(int first, int step, int n, int k, int placement, ActorRef[] next) implements Wire {}

    /**
     * A node's agent to the coordinator: {@code count} of its processes are linked and have arrived at the
     * agent's gate; the coordinator adds the count to its own gate. One message per node, not per process.
     */
    record Arrivals(long count) implements Wire {}

    /** A peer node's host to the driver's registry, once its system is up: "node {@code node} is here". */
    record Hello(int node) implements Wire {}

    /**
     * The driver to the host of a node the user started (--hosts), asked once it is reached: you are node
     * {@code node} of this driver's ring (trace records and the proof's cross-node receipts name it). The
     * host replies with it.
     */
    record Assign(int node) implements Wire {}

    /** The cluster view (continuous mode, stats=1): start its clocks now (asked of every host, which replies with it). */
    enum ViewStart implements Wire { NOW }

    /** The cluster view: what this node has done so far (asked of each host after a sample). */
    enum View implements Wire { ASK }

    /** One node's view (contract section 10, the cluster view), in the order of its record. */
    record NodeView(String name, long[] values) implements Wire {
        static final String[] FIELDS = {"processes_in_ring", "elapsed_ns", "laps", "sched_active", "sched_total",
            "dist_in", "dist_out", "memory", "processes", "cpu_ns"};
    }

    /** The start signal (pingpong's A, fanin's senders). */
    enum Start { GO }
}
