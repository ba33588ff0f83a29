package ringbench.driver;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The C calls the drivers make, through the Foreign Function &amp; Memory API.
 * Linker.downcallHandle is a restricted method: the launchers grant it with
 * --enable-native-access=ALL-UNNAMED, and javac's "restricted" lint, which
 * says just that, is silenced here, where the calls are.
 */
@SuppressWarnings("restricted")
public final class Native {
    private static final int CLOCK_PROCESS_CPUTIME_ID = 2; // Linux
    private static final int PR_FUTEX_HASH = 78, PR_FUTEX_HASH_SET_SLOTS = 1;
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle CLOCK_GETTIME = LINKER.downcallHandle(
            LINKER.defaultLookup().find("clock_gettime").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
    private static final MethodHandle GETPAGESIZE = LINKER.downcallHandle(
            LINKER.defaultLookup().find("getpagesize").orElseThrow(), FunctionDescriptor.of(ValueLayout.JAVA_INT));
    private static final int RUSAGE_SELF = 0;
    private static final MethodHandle GETRUSAGE = LINKER.downcallHandle(
            LINKER.defaultLookup().find("getrusage").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
    /** struct timespec { long tv_sec; long tv_nsec; }, read under the class lock. */
    private static final MemorySegment TIMESPEC = Arena.global().allocate(16, 8);
    /**
     * struct rusage on Linux x86-64 and aarch64 (glibc): two struct timeval (16 bytes each),
     * then 14 longs from ru_maxrss to ru_nivcsw; ru_nvcsw is the 13th, at byte 128, ru_nivcsw
     * at 136. Read under the class lock.
     */
    private static final MemorySegment RUSAGE = Arena.global().allocate(144, 8);
    private static final long RU_NVCSW = 128, RU_NIVCSW = 136;

    private Native() {}

    /**
     * User + system CPU time of the whole process in ns, clock_gettime(CLOCK_PROCESS_CPUTIME_ID);
     * -1 if the call fails.
     */
    public static synchronized long processCpuNs() {
        try {
            int rc = (int) CLOCK_GETTIME.invokeExact(CLOCK_PROCESS_CPUTIME_ID, TIMESPEC);
            if (rc != 0) return -1;
            return TIMESPEC.get(ValueLayout.JAVA_LONG, 0) * 1_000_000_000L + TIMESPEC.get(ValueLayout.JAVA_LONG, 8);
        } catch (Throwable t) {
            return -1;
        }
    }

    /**
     * The voluntary and involuntary context switches of the whole process, getrusage(RUSAGE_SELF)'s
     * ru_nvcsw and ru_nivcsw, into {@code out[0]} and {@code out[1]}: every thread's, the ended ones
     * included (the kernel adds a thread's counts to the process's when it exits). False if the call
     * fails.
     */
    public static synchronized boolean contextSwitches(long[] out) {
        try {
            int rc = (int) GETRUSAGE.invokeExact(RUSAGE_SELF, RUSAGE);
            if (rc != 0) return false;
            out[0] = RUSAGE.get(ValueLayout.JAVA_LONG, RU_NVCSW);
            out[1] = RUSAGE.get(ValueLayout.JAVA_LONG, RU_NIVCSW);
            return true;
        } catch (Throwable t) {
            return false;
        }
    }

    /** The memory page size in bytes, getpagesize() (4096 if the call fails). */
    public static long pageSize() {
        try {
            return (int) GETPAGESIZE.invokeExact();
        } catch (Throwable t) {
            return 4096;
        }
    }

    /**
     * prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_SET_SLOTS, slots, 0, 0): size the process's
     * private futex hash (Linux 6.17+; older kernels answer -1, EINVAL). Returns
     * prctl's result, or Integer.MIN_VALUE when the call could not be made.
     */
    public static int futexHashSlots(long slots) {
        try {
            MemorySegment fn = LINKER.defaultLookup().find("prctl").orElse(null);
            if (fn == null) return Integer.MIN_VALUE;
            // int prctl(int option, ...): the option is fixed, the four unsigned longs variadic.
            MethodHandle prctl = LINKER.downcallHandle(fn,
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                            ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG),
                    Linker.Option.firstVariadicArg(1));
            return (int) prctl.invokeExact(PR_FUTEX_HASH, (long) PR_FUTEX_HASH_SET_SLOTS, slots, 0L, 0L);
        } catch (Throwable t) {
            return Integer.MIN_VALUE;
        }
    }
}
