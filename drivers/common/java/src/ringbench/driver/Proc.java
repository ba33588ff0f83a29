package ringbench.driver;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

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
     * The voluntary and involuntary context switches of the threads alive now: the sums of
     * voluntary_ctxt_switches and nonvoluntary_ctxt_switches over /proc/self/task/&#42;/status,
     * into {@code out[0]} and {@code out[1]}. Threads that ended before the reading are not
     * counted (their task entries are gone), so this is the fallback of
     * {@link Native#contextSwitches}, which counts them. False if /proc cannot be read.
     */
    public static boolean contextSwitches(long[] out) {
        long v = 0, iv = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path t : tasks) {
                List<String> lines;
                try {
                    lines = Files.readAllLines(t.resolve("status"));
                } catch (IOException e) {
                    continue; // the thread ended between the listing and the read
                }
                for (String l : lines) {
                    if (l.startsWith("voluntary_ctxt_switches:")) v += number(l);
                    else if (l.startsWith("nonvoluntary_ctxt_switches:")) iv += number(l);
                }
            }
        } catch (IOException | RuntimeException e) {
            return false;
        }
        out[0] = v;
        out[1] = iv;
        return true;
    }

    private static long number(String line) { return Long.parseLong(line.substring(line.indexOf(':') + 1).trim()); }

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
