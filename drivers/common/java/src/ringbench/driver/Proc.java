package ringbench.driver;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What the kernel says about this process: /proc/self (contract section 4). */
public final class Proc {
    private Proc() {}

    private static final long PAGE = Native.pageSize();

    /**
     * The resident set in bytes: the second field of /proc/self/statm (the same count as
     * VmRSS of /proc/self/status, which the kernel takes longer to format) times the page size.
     */
    public static long rss() {
        try {
            String statm = Files.readString(Path.of("/proc/self/statm"));
            int a = statm.indexOf(' '), b = statm.indexOf(' ', a + 1);
            return Long.parseLong(statm.substring(a + 1, b)) * PAGE;
        } catch (IOException | RuntimeException e) {
            return status("VmRSS:") * 1024;
        }
    }

    /** VmHWM of /proc/self/status (the peak RSS since the last reset), bytes. */
    public static long hwm() { return status("VmHWM:") * 1024; }

    /** Threads: of /proc/self/status, the process's OS threads. */
    public static long threads() { return status("Threads:"); }

    /**
     * Reset the kernel's peak-RSS mark to the current RSS (write 5 to
     * /proc/self/clear_refs); false where the kernel refuses it.
     */
    public static boolean resetPeak() {
        try {
            Files.writeString(Path.of("/proc/self/clear_refs"), "5");
            return true;
        } catch (IOException | SecurityException e) {
            return false;
        }
    }

    /** The number on a "Key:   123 kB" line of /proc/self/status (0 if absent). */
    private static long status(String key) {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (l.startsWith(key)) return Long.parseLong(l.substring(key.length()).trim().split("\\s+")[0]);
            }
        } catch (IOException | RuntimeException ignored) {
            // a /proc without the line: reported as 0
        }
        return 0;
    }
}
