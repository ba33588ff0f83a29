package ringbench.driver;

/**
 * Native for a JDK older than 22 (another installation, README "Compare versions of a runtime"):
 * the Foreign Function &amp; Memory API of src/ringbench/driver/Native.java is final from JDK 22, so
 * here every C call answers "could not be made" and the callers take their fallbacks: CPU time from
 * the OperatingSystemMXBean, context switches from /proc/self/task (Meter), a 4 KiB page (Proc),
 * no futex hash sizing (java-threads/tuned). lib.sh compiles this file in place of the other.
 */
public final class Native {
    private Native() {}

    /** -1: the call is not made (Meter falls back to the OperatingSystemMXBean). */
    public static long processCpuNs() {
        return -1;
    }

    /** False: the call is not made (Meter falls back to /proc/self/task). */
    public static boolean contextSwitches(long[] out) {
        return false;
    }

    /** 4096, the page size of Linux on x86-64 and of most aarch64 kernels. */
    public static long pageSize() {
        return 4096;
    }

    /** Integer.MIN_VALUE: the call is not made. */
    public static int futexHashSlots(long slots) {
        return Integer.MIN_VALUE;
    }
}
