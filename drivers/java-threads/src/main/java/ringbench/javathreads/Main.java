package ringbench.javathreads;

import java.util.List;
import java.util.concurrent.ThreadFactory;
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
        long stack = 0; // 0: the JVM's default stack size
        if (variant.equals("tuned")) {
            stack = TUNED_STACK;
            futexHash(p.processes() + Thread.activeCount());
        }
        return new ThreadWorkloads(platform(stack), true, ThreadWorkloads.boxesOf(variant),
                "check kernel.pid_max, kernel.threads-max, vm.max_map_count (sysctl), ulimit -u and free memory");
    }

    /**
     * Platform threads as Thread.ofPlatform().name("ringbench-p").daemon(true)
     * .inheritInheritableThreadLocals(false).stackSize(stack) makes them, through the
     * constructor that builder calls, which JDK 17 has too (another installation, README).
     */
    private static ThreadFactory platform(long stack) {
        return r -> {
            Thread t = new Thread(null, r, "ringbench-p", stack, false);
            t.setDaemon(true);
            return t;
        };
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
