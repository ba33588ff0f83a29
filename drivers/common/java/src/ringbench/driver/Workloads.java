package ringbench.driver;

import java.util.function.LongSupplier;

/**
 * A driver's workloads: the runtime's own part of the contract (section 3),
 * written in the runtime's idiom. The library ({@link Driver#serve}) calls one
 * of them once per iteration on the main thread, checks the count it returns
 * and prints the result; each workload bounds its phases with the {@link Meter}
 * it is given and builds its processes afresh every time.
 */
public interface Workloads {
    /**
     * {@code ring}: spawn p.n() processes ({@code spawnBegins} … {@code spawnEnds(ready)}), then
     * pass p.tokens() tokens p.m() laps each ({@code runBegins} … {@code runEnds}); tear down
     * untimed. Returns the receipts the processes counted.
     */
    long ring(Params p, Meter meter) throws Exception;

    /**
     * Continuous mode (section 5): spawn the ring, end the spawn phase, call
     * {@code runBegins()} and inject the tokens, which then circulate without end.
     * Returns the hop count so far (laps passed at p0 × n), read by the sampler.
     */
    LongSupplier ringForever(Params p, Meter meter) throws Exception;

    /** {@code spawn}: p.n() idle processes, each holding what a ring process holds; returns the arrivals. */
    long spawn(Params p, Meter meter) throws Exception;

    /** {@code pingpong}: p.m() round trips between two processes; returns those B counted. */
    long pingpong(Params p, Meter meter) throws Exception;

    /** {@code fanin}: p.n() senders, p.m() messages each, one receiver; returns the messages received. */
    long fanin(Params p, Meter meter) throws Exception;

    /**
     * {@code tree}: the skynet tree of p.n() leaves and fan-out p.fanout(), timed as one phase
     * ({@code treeBegins} … {@code treeEnds}); returns the root's sum.
     */
    long tree(Params p, Meter meter) throws Exception;

    /**
     * {@code trace}: the ring with one token; when {@code print}, each receiving process
     * prints its hop with {@link Out#hop} as it happens. Returns the receipts.
     */
    long trace(Params p, Meter meter, boolean print) throws Exception;

    /** {@code selective}, for runtimes with selective receive; others leave it out of describe. */
    default long selective(Params p, Meter meter) throws Exception {
        throw Fail.unsupported("this driver has no selective receive");
    }

    /**
     * Under the verb {@code batch}, after a line's last iteration and before its {@code done} record:
     * end what the run still holds that a fresh process would not have (continuous mode's ring,
     * a runtime's own system), so that the next line starts as a fresh process would. A plain
     * {@code run} ends the JVM instead and never calls it.
     */
    default void release() throws Exception {}

    /** Extra fields of the stats record (numbers only, snake_case). */
    default void stats(Out.Rec stats) {}
}
