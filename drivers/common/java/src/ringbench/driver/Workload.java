package ringbench.driver;

import java.util.List;

/** The contract's workloads (section 3) and the keys each echoes, in order (section 4). */
public enum Workload {
    RING("ring", "n", "m", "tokens", "burst"),
    SPAWN("spawn", "n"),
    PINGPONG("pingpong", "m"),
    FANIN("fanin", "n", "m"),
    SELECTIVE("selective", "n", "m", "reverse"),
    TREE("tree", "n", "fanout"),
    TRACE("trace", "n", "m");

    /** The name on the command line and in records. */
    public final String id;
    /** The workload's own keys, in the order a result echoes them. */
    public final List<String> keys;

    Workload(String id, String... keys) {
        this.id = id;
        this.keys = List.of(keys);
    }

    /** The workload called {@code id}, or null. */
    public static Workload named(String id) {
        for (Workload w : values()) if (w.id.equals(id)) return w;
        return null;
    }
}
