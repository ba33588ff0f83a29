package ringbench.driver;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * The collector this JVM runs, by the short name HotSpot gives it (as in its
 * -XX:+UseG1GC, -XX:+UseParallelGC flags): what {@code describe} reports and a manifest's
 * {@code collector} names.
 */
public final class Collector {
    private Collector() {}

    /** "G1", "Parallel", "Serial", "ZGC", "Shenandoah", "Epsilon", or the MXBeans' own names. */
    public static String name() {
        List<String> beans = ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(GarbageCollectorMXBean::getName).toList();
        if (beans.isEmpty()) return "Epsilon";
        String first = beans.get(0);
        if (first.startsWith("G1 ")) return "G1";
        if (first.startsWith("PS ")) return "Parallel";
        if (first.equals("Copy") || first.equals("MarkSweepCompact")) return "Serial";
        if (first.startsWith("ZGC")) return "ZGC";
        if (first.startsWith("Shenandoah")) return "Shenandoah";
        if (first.startsWith("Epsilon")) return "Epsilon";
        return String.join(", ", beans);
    }
}
