package ringbench.javathreads;

import java.util.List;
import ringbench.driver.Description;
import ringbench.driver.Driver;
import ringbench.driver.Native;
import ringbench.driver.Params;
import ringbench.driver.Workloads;
import ringbench.threads.ThreadWorkloads;

/** java-threads: one platform (OS) thread per process. */
public final class Main {
    private static final Description DESCRIPTION = new Description("java-threads", "Java",
            Runtime.version().toString(), Description.STANDARD, Description.ALL_FEATURES,
            List.of("stock", "parkbox", "handoff", "tuned"), true, ThreadWorkloads.NO_SELECTIVE);

    /** tuned: the stack size each process thread asks for (HotSpot rounds it up to its minimum). */
    private static final long TUNED_STACK = 256 * 1024;

    private Main() {}

    public static void main(String[] args) {
        Driver.serve(args, DESCRIPTION, Main::prepare);
    }

    private static Workloads prepare(String variant, Params p) {
        Thread.Builder.OfPlatform threads = Thread.ofPlatform().name("ringbench-p").daemon(true)
                .inheritInheritableThreadLocals(false);
        if (variant.equals("tuned")) {
            threads = threads.stackSize(TUNED_STACK);
            futexHash(p.processes() + Thread.activeCount());
        }
        return new ThreadWorkloads(threads.factory(), true, ThreadWorkloads.boxesOf(variant),
                "check kernel.pid_max, kernel.threads-max, vm.max_map_count (sysctl), ulimit -u and free memory");
    }

    /**
     * tuned: size the process's private futex hash (Linux 6.17+; older kernels answer
     * EINVAL, harmless) to the next power of two at or above the threads the run
     * will have, clamped to [16, 2^22], before any process thread starts.
     */
    private static void futexHash(long threads) {
        long slots = 16;
        while (slots < threads && slots < (1L << 22)) slots <<= 1;
        Native.futexHashSlots(slots);
    }
}
