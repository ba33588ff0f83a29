// Process CPU time with nanosecond resolution: clock_gettime(CLOCK_PROCESS_CPUTIME_ID)
// called through the Foreign Function & Memory API (final in JDK 22). The
// OperatingSystemMXBean's getProcessCpuTime() only ticks every 10 ms on Linux,
// so RingBench falls back to it only when this class is absent (JDK 21 build).

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.function.LongSupplier;

final class CpuFfm implements LongSupplier {
    private static final int CLOCK_PROCESS_CPUTIME_ID = 2; // Linux
    private final MethodHandle clockGettime;
    private final MemorySegment ts;

    CpuFfm() {
        Linker linker = Linker.nativeLinker();
        futexHashSetup(linker);
        MemorySegment fn = linker.defaultLookup().find("clock_gettime").orElseThrow();
        clockGettime = linker.downcallHandle(fn,
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        ts = Arena.global().allocate(16, 8); // struct timespec { long tv_sec; long tv_nsec; }
    }

    // ------------------------------------------------------------ futex hash
    //
    // Since Linux 6.16 a process gets a private futex hash table sized by the CPU
    // count (16 buckets on 2 cores), so with thousands of parked threads every
    // futex wake walks a long chain. Like drivers/c-pthreads (futex_hash_setup),
    // ask for slots = next power of two >= the number of process threads, clamped
    // to [16, 2^22], with prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_SET_SLOTS, slots, 0, 0).
    // RINGBENCH_FUTEX_HASH_SLOTS overrides the count (a negative value skips the
    // call). Older kernels reject the option (EINVAL): harmless, ignored.
    //
    // RingBench (shared with drivers/java-virtual) constructs this class while it
    // initialises, before it parses its arguments or starts any process thread.
    // To keep RingBench.java unchanged, the thread count is taken from the command
    // line (sun.java.command = "RingBench run <workload> key=value ..."); anything
    // unexpected means no call. Only this folder's build has it: virtual threads
    // don't need it.

    private static final int PR_FUTEX_HASH = 78;
    private static final int PR_FUTEX_HASH_SET_SLOTS = 1;
    /** Slots requested (-1: none), and prctl's return value; for diagnostics. */
    static long futexSlots = -1;
    static int futexRc = Integer.MIN_VALUE;

    private static void futexHashSetup(Linker linker) {
        try {
            long slots = -1;
            String env = System.getenv("RINGBENCH_FUTEX_HASH_SLOTS");
            if (env != null && !env.isEmpty()) {
                slots = Long.parseLong(env.trim());
            } else {
                long threads = threadsWanted(System.getProperty("sun.java.command", ""));
                if (threads > 0) {
                    slots = 16;
                    while (slots < threads && slots < (1L << 22)) slots <<= 1;
                }
            }
            if (slots < 0) return;
            MemorySegment fn = linker.defaultLookup().find("prctl").orElse(null);
            if (fn == null) return;
            // int prctl(int option, ...): option fixed, the four unsigned longs variadic.
            MethodHandle prctl = linker.downcallHandle(fn,
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                            ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG),
                    Linker.Option.firstVariadicArg(1));
            futexSlots = slots;
            futexRc = (int) prctl.invokeExact(PR_FUTEX_HASH, (long) PR_FUTEX_HASH_SET_SLOTS, slots, 0L, 0L);
        } catch (Throwable ignored) {
            // No FFM / native access / prctl: leave the kernel's default table.
        }
    }

    /** Process threads a "run" will start (same rule as RingBench.run), or -1. */
    static long threadsWanted(String command) {
        String[] a = command.trim().split("\\s+");
        if (a.length < 3 || !a[1].equals("run")) return -1;
        long n = -1;
        for (int i = 3; i < a.length; i++) {
            if (a[i].startsWith("n=")) {
                try {
                    n = Long.parseLong(a[i].substring(2));
                } catch (NumberFormatException e) {
                    return -1;
                }
            }
        }
        return switch (a[2]) {
            case "ring", "spawn", "trace" -> n;
            case "fanin" -> n < 0 ? -1 : n + 1;
            case "pingpong" -> 2;
            default -> -1;
        };
    }

    @Override
    public long getAsLong() {
        try {
            int rc = (int) clockGettime.invokeExact(CLOCK_PROCESS_CPUTIME_ID, ts);
            if (rc != 0) return -1;
            return ts.get(ValueLayout.JAVA_LONG, 0) * 1_000_000_000L + ts.get(ValueLayout.JAVA_LONG, 8);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
