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
        MemorySegment fn = linker.defaultLookup().find("clock_gettime").orElseThrow();
        clockGettime = linker.downcallHandle(fn,
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        ts = Arena.global().allocate(16, 8); // struct timespec { long tv_sec; long tv_nsec; }
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
