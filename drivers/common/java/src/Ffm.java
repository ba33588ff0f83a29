// Native calls through the Foreign Function & Memory API (final in JDK 22, so
// build.sh compiles this file only on JDK >= 22; RingBench loads it by name and
// falls back when it is absent):
//
// - process CPU time with nanosecond resolution, clock_gettime(CLOCK_PROCESS_CPUTIME_ID):
//   the OperatingSystemMXBean's getProcessCpuTime() only moves in 10 ms steps on Linux;
// - the size of the process's private futex hash table, prctl(PR_FUTEX_HASH), asked
//   for only by java-threads/tuned (see drivers/java-threads/README.md).

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

final class Ffm implements RingBench.Native {
    private static final int CLOCK_PROCESS_CPUTIME_ID = 2; // Linux
    private static final int PR_FUTEX_HASH = 78;
    private static final int PR_FUTEX_HASH_SET_SLOTS = 1;

    private final Linker linker = Linker.nativeLinker();
    private final MethodHandle clockGettime;
    private final MemorySegment ts;

    Ffm() {
        MemorySegment fn = linker.defaultLookup().find("clock_gettime").orElseThrow();
        clockGettime = linker.downcallHandle(fn,
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        ts = Arena.global().allocate(16, 8); // struct timespec { long tv_sec; long tv_nsec; }
    }

    @Override
    public long cpuNs() {
        try {
            int rc = (int) clockGettime.invokeExact(CLOCK_PROCESS_CPUTIME_ID, ts);
            if (rc != 0) return -1;
            return ts.get(ValueLayout.JAVA_LONG, 0) * 1_000_000_000L + ts.get(ValueLayout.JAVA_LONG, 8);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_SET_SLOTS, slots, 0, 0); returns prctl's
     * result (older kernels: -1, EINVAL, harmless) or Integer.MIN_VALUE when the
     * call could not be made.
     */
    @Override
    public int futexHashSlots(long slots) {
        try {
            MemorySegment fn = linker.defaultLookup().find("prctl").orElse(null);
            if (fn == null) return Integer.MIN_VALUE;
            // int prctl(int option, ...): the option is fixed, the four unsigned longs variadic.
            MethodHandle prctl = linker.downcallHandle(fn,
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                            ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG),
                    Linker.Option.firstVariadicArg(1));
            return (int) prctl.invokeExact(PR_FUTEX_HASH, (long) PR_FUTEX_HASH_SET_SLOTS, slots, 0L, 0L);
        } catch (Throwable t) {
            return Integer.MIN_VALUE;
        }
    }
}
