package ringbench.driver;

import java.util.List;

/**
 * What a driver says of itself in {@code describe} (contract section 4), and
 * what the library needs to know to serve it.
 *
 * @param name       the driver folder's name ("java-virtual")
 * @param runtime    the runtime, for people ("Java")
 * @param version    the runtime's own idea of its version
 * @param workloads  the workloads it implements, from ring, spawn, pingpong, fanin, selective, tree, trace
 * @param features   from tokens, continuous, stats, nodes (describe adds batch, which the library serves)
 * @param variants   the variants {@code --variant=} may name (the first is the default); empty: none
 * @param osThreads  one OS thread per process: results carry threads_before/threads_after
 * @param noSelective why {@code selective} is unsupported, when it is not in {@code workloads}
 */
public record Description(String name, String runtime, String version, List<String> workloads,
        List<String> features, List<String> variants, boolean osThreads, String noSelective) {

    /** The workloads every driver has (section 3), without selective. */
    public static final List<String> STANDARD = List.of("ring", "spawn", "pingpong", "fanin", "tree", "trace");
    /** Every feature of section 4. */
    public static final List<String> ALL_FEATURES = List.of("tokens", "continuous", "stats");
}
