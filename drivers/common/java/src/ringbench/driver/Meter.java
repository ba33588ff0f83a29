package ringbench.driver;

import java.lang.management.CompilationMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.List;

/**
 * The clocks of one iteration's phases, the one collection between them and
 * the memory of the process's first spawn (contract section 3). A workload
 * calls, on its main thread:
 *
 * <ul>
 * <li>{@link #spawnBegins()} … {@link #spawnEnds(long)} around the spawn phase
 * (which ends when every process has arrived at the gate), then
 * {@link #runBegins()} … {@link #runEnds()} around the message phase;</li>
 * <li>or, for {@code tree}, {@link #treeBegins()} … {@link #treeEnds()} around
 * its one phase.</li>
 * </ul>
 *
 * Wall time is System.nanoTime (CLOCK_MONOTONIC); CPU time is the whole
 * process's, clock_gettime(CLOCK_PROCESS_CPUTIME_ID); the context switches are
 * the whole process's too, getrusage(RUSAGE_SELF), read next to the CPU clock,
 * outside the wall-clock interval (before its start, after its end). After the
 * process's first spawn phase (or first tree), untimed, one System.gc() (a full
 * stop-the-world collection: no variant sets -XX:+ExplicitGCInvokesConcurrent);
 * later iterations force none, since a forced collection lets G1 shrink the heap
 * that the next timed phase then pays to regrow (contract section 3). Memory is
 * read around that first spawn phase only (the warm-up's when there is one) and
 * echoed by every later iteration; {@code *_after} after that collection.
 */
public final class Meter {
    private static final List<GarbageCollectorMXBean> GCS = ManagementFactory.getGarbageCollectorMXBeans();
    private static final boolean NATIVE_CPU = Native.processCpuNs() > 0;
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private static final boolean NATIVE_CSW = Native.contextSwitches(new long[2]);

    private final boolean threads;

    // The process's first spawn phase (or first tree), echoed after.
    private boolean before, after;
    private long rssBefore, rssAfter, rssPeak = -1, heapBefore, heapAfter, threadsBefore, threadsAfter;
    private boolean peakReset;

    // This iteration.
    private long ready = -1, setupNs, setupCpu, runNs, runCpu, betweenNs;
    private long t0, c0, t2, c2;
    // Context switches: {voluntary, involuntary} at each phase's start, and over each phase.
    private final long[] s0 = new long[2], s1 = new long[2], s2 = new long[2], s3 = new long[2];
    private long setupVcsw, setupIvcsw, runVcsw, runIvcsw;
    private long[] g0, g1, g2, g3;

    /** @param threads the driver runs one OS thread per process: report threads_before/threads_after */
    public Meter(boolean threads) { this.threads = threads; }

    /** The CPU clock the {@code *_cpu_ns} figures come from, for {@code describe}. */
    public static String cpuClock() {
        return NATIVE_CPU ? "clock_gettime(CLOCK_PROCESS_CPUTIME_ID)" : "OperatingSystemMXBean.getProcessCpuTime";
    }

    /** Process CPU time, ns. */
    public static long cpu() { return NATIVE_CPU ? Native.processCpuNs() : OS.getProcessCpuTime(); }

    /** Where the {@code *_vcsw} and {@code *_ivcsw} figures come from. */
    public static String contextSwitchSource() {
        return NATIVE_CSW ? "getrusage(RUSAGE_SELF)" : "/proc/self/task/*/status";
    }

    /**
     * The process's voluntary and involuntary context switches so far into {@code out}:
     * getrusage(RUSAGE_SELF) (every thread, ended ones included), or, only if that call
     * cannot be made, the sum over /proc/self/task (the live threads only); zeros if neither.
     */
    public static void contextSwitches(long[] out) {
        if (NATIVE_CSW && Native.contextSwitches(out)) return;
        if (!Proc.contextSwitches(out)) out[0] = out[1] = 0;
    }

    void reset() {
        ready = -1;
        setupNs = setupCpu = runNs = runCpu = betweenNs = 0;
        setupVcsw = setupIvcsw = runVcsw = runIvcsw = 0;
        g0 = g1 = g2 = g3 = null;
    }

    /** The spawn phase begins (memory read first, on the process's first spawn). */
    public void spawnBegins() {
        g0 = gcSnapshot();
        readBefore();
        contextSwitches(s0);
        c0 = cpu();
        t0 = System.nanoTime();
    }

    /**
     * The spawn phase ends: main has seen {@code ready} arrivals at the gate. Then, untimed,
     * the collection, on the process's first spawn only.
     */
    public void spawnEnds(long ready) {
        long t1 = System.nanoTime(), c1 = cpu();
        contextSwitches(s1);
        this.ready = ready;
        setupNs = t1 - t0;
        setupCpu = c1 - c0;
        // Never negative: only the /proc fallback can lose counts (of threads that ended).
        setupVcsw = Math.max(0, s1[0] - s0[0]);
        setupIvcsw = Math.max(0, s1[1] - s0[1]);
        g1 = gcSnapshot();
        collect();
        g2 = gcSnapshot();
    }

    /** The message phase begins (continuous mode: the first token is about to go in). */
    public void runBegins() {
        contextSwitches(s2);
        c2 = cpu();
        t2 = System.nanoTime();
    }

    /** The message phase ends. */
    public void runEnds() {
        long t3 = System.nanoTime(), c3 = cpu();
        runNs = t3 - t2;
        runCpu = c3 - c2;
        runSwitches();
        g3 = gcSnapshot();
    }

    private void runSwitches() {
        contextSwitches(s3);
        runVcsw = Math.max(0, s3[0] - s2[0]);
        runIvcsw = Math.max(0, s3[1] - s2[1]);
    }

    /** Nanoseconds since {@link #runBegins()} (continuous mode's elapsed_ns). */
    public long sinceRunBegan() { return System.nanoTime() - t2; }

    /** The tree's one phase begins: memory before and, on the first tree, the peak mark reset. */
    public void treeBegins() {
        readBefore();
        if (!after && !peakReset) peakReset = Proc.resetPeak();
        g2 = gcSnapshot();
        runBegins();
    }

    /**
     * The tree's phase ends (main has the root's sum): the peak, then, on the first tree only, the
     * collection and the memory after.
     */
    public void treeEnds() {
        long t3 = System.nanoTime(), c3 = cpu();
        runNs = t3 - t2;
        runCpu = c3 - c2;
        runSwitches();
        if (rssPeak < 0) rssPeak = Proc.hwm();
        g3 = gcSnapshot();
        collect();
    }

    private void readBefore() {
        if (before) return;
        before = true;
        if (threads) threadsBefore = Proc.threads();
        heapBefore = heapAfterLastCollection();
        rssBefore = Proc.rss();
    }

    /**
     * The process's one forced collection, after its first spawn phase (or first tree), and
     * the memory after it; every later call does nothing, so gc_between_ns is 0 there. VmRSS
     * is read first, at once: after a full collection G1 shrinks the heap and its service
     * thread uncommits the freed regions (start-up garbage, the archived-heap region) a
     * fraction of a millisecond later, so a later read sees several MB less. The heap
     * figure is the pools' usage as of the collection, whenever it is read.
     */
    private void collect() {
        if (after) return;
        after = true;
        long t = System.nanoTime();
        System.gc();
        rssAfter = Proc.rss();
        heapAfter = heapAfterLastCollection();
        if (threads) threadsAfter = Proc.threads();
        betweenNs = System.nanoTime() - t;
    }

    /**
     * The Java heap in use as of the latest collection: the sum over the heap's pools of
     * their usage after the collection that last processed them. Read right after the
     * forced collection it is the live heap, unaffected by TLABs handed out since; read
     * before a fresh JVM's first spawn it is 0 (nothing has been collected yet, and the
     * contract forces no collection there).
     */
    private static long heapAfterLastCollection() {
        long sum = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() != MemoryType.HEAP) continue;
            MemoryUsage u = pool.getCollectionUsage();
            if (u != null) sum += u.getUsed();
        }
        return sum;
    }

    /** The iteration's fields of a result record (after the workload's own keys and count). */
    void result(Out.Rec r) {
        if (ready >= 0) r.n("ready", ready);
        r.n("setup_ns", setupNs).n("run_ns", runNs).n("setup_cpu_ns", setupCpu).n("run_cpu_ns", runCpu)
                .n("setup_vcsw", setupVcsw).n("setup_ivcsw", setupIvcsw).n("run_vcsw", runVcsw).n("run_ivcsw", runIvcsw)
                .n("rss_before", rssBefore).n("rss_after", rssAfter);
        if (rssPeak >= 0) r.n("rss_peak", rssPeak);
        r.n("runtime_mem_before", heapBefore).n("runtime_mem_after", heapAfter);
        if (threads) r.n("threads_before", threadsBefore).n("threads_after", threadsAfter);
    }

    /**
     * The collector's work in the timed phases (the forced collection apart: gc_between_ns, its
     * time with the memory read after it, 0 in an iteration that forced none), heap, JIT, threads.
     */
    void stats(Out.Rec s) {
        long[] a = g0, b = g1, c = g2, d = g3 != null ? g3 : g2;
        long setupCount = 0, setupMs = 0, runCount = 0, runMs = 0;
        for (int i = 0; i < GCS.size(); i++) {
            long sc = a == null ? 0 : b[2 * i] - a[2 * i], st = a == null ? 0 : b[2 * i + 1] - a[2 * i + 1];
            long rc = c == null ? 0 : d[2 * i] - c[2 * i], rt = c == null ? 0 : d[2 * i + 1] - c[2 * i + 1];
            setupCount += sc;
            setupMs += st;
            runCount += rc;
            runMs += rt;
            String name = "gc_" + snake(GCS.get(i).getName());
            s.n(name + "_count", sc + rc).n(name + "_time_ms", st + rt);
        }
        s.n("gc_count", setupCount + runCount).n("gc_time_ms", setupMs + runMs)
                .n("gc_setup_count", setupCount).n("gc_setup_time_ms", setupMs)
                .n("gc_run_count", runCount).n("gc_run_time_ms", runMs)
                .n("gc_between_ns", betweenNs);
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        s.n("heap_used", heap.getUsed()).n("heap_committed", heap.getCommitted()).n("heap_max", heap.getMax());
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit != null && jit.isCompilationTimeMonitoringSupported()) s.n("jit_time_ms_total", jit.getTotalCompilationTime());
        s.n("platform_threads", ManagementFactory.getThreadMXBean().getThreadCount());
    }

    /** Collection counts and times (ms) per collector, interleaved. */
    private static long[] gcSnapshot() {
        long[] s = new long[2 * GCS.size()];
        for (int i = 0; i < GCS.size(); i++) {
            s[2 * i] = Math.max(0, GCS.get(i).getCollectionCount());
            s[2 * i + 1] = Math.max(0, GCS.get(i).getCollectionTime());
        }
        return s;
    }

    private static String snake(String s) {
        return s.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9]+", "_").replaceAll("^_|_$", "");
    }
}
