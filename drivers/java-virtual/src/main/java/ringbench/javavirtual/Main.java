package ringbench.javavirtual;

import java.util.List;
import ringbench.driver.Description;
import ringbench.driver.Driver;
import ringbench.driver.Params;
import ringbench.driver.Workloads;
import ringbench.threads.ThreadWorkloads;

/** java-virtual: one virtual thread per process, carriers = the contract's cores. */
public final class Main {
    private static final Description DESCRIPTION = new Description("java-virtual", "Java",
            Runtime.version().toString(), Description.STANDARD, Description.ALL_FEATURES,
            List.of("stock", "parkbox", "handoff", "tuned"), false, ThreadWorkloads.NO_SELECTIVE);

    private Main() {}

    public static void main(String[] args) {
        Driver.serve(args, DESCRIPTION, Main::prepare);
    }

    private static Workloads prepare(String variant, Params p) {
        // The scheduler reads its size when the first virtual thread is made, which is after this.
        System.setProperty("jdk.virtualThreadScheduler.parallelism", Integer.toString(p.cores()));
        return new ThreadWorkloads(Thread.ofVirtual().factory(), false, ThreadWorkloads.boxesOf(variant),
                "virtual threads live in the Java heap: raise its maximum (-Xmx, set by ringbench through the "
                        + "manifest's [limits.heap] for a cell that needs it) or use a smaller n");
    }
}
