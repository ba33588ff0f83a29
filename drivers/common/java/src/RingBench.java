// ringbench driver for the JVM. The same file is used by drivers/java-threads
// (one platform thread per process) and drivers/java-virtual (one virtual
// thread per process); Flavor.java in each folder says which.
//
// Contract: docs/driver-contract.md (version 1). stdout carries JSON Lines only.

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.management.CompilationMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

public final class RingBench {

    // ------------------------------------------------------------------ errors

    static final class Fail extends RuntimeException {
        final String kind;
        final int code;

        Fail(String kind, int code, String msg) {
            super(msg, null, false, false);
            this.kind = kind;
            this.code = code;
        }
    }

    static Fail badParam(String m) { return new Fail("bad_param", 2, m); }
    static Fail limit(String m) { return new Fail("limit", 3, m); }
    static Fail failure(String m) { return new Fail("failure", 1, m); }

    // ------------------------------------------------------------------ output

    static final PrintStream OUT = new PrintStream(
            new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16),
            false, StandardCharsets.UTF_8);
    static final Object OUT_LOCK = new Object();
    static boolean dying;

    static void emit(String line) {
        synchronized (OUT_LOCK) {
            if (dying) return;
            OUT.print(line);
            OUT.print('\n');
            OUT.flush();
        }
    }

    /** Print one error record and leave at once (any thread may call it). */
    static void die(String kind, int code, String msg) {
        synchronized (OUT_LOCK) {
            if (!dying) {
                dying = true;
                OUT.print("{\"type\":\"error\",\"kind\":\"" + kind + "\",\"message\":" + jstr(msg) + "}\n");
                OUT.flush();
                Runtime.getRuntime().halt(code);
            }
        }
        for (;;) LockSupport.park(); // another thread is halting the VM
    }

    static String jstr(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
                    else b.append(c);
                }
            }
        }
        return b.append('"').toString();
    }

    /** A JSON object built field by field; numbers only except where stated. */
    static final class Rec {
        final StringBuilder b = new StringBuilder(256);

        Rec(String type) { b.append("{\"type\":").append(jstr(type)); }

        Rec s(String k, String v) { b.append(",\"").append(k).append("\":").append(jstr(v)); return this; }
        Rec n(String k, long v) { b.append(",\"").append(k).append("\":").append(v); return this; }
        Rec raw(String k, String json) { b.append(",\"").append(k).append("\":").append(json); return this; }

        void emit() { RingBench.emit(b.append('}').toString()); }
    }

    // --------------------------------------------------------------- mailboxes

    /**
     * A process's mailbox: many producers, one consumer (its owner), unbounded,
     * asynchronous send as in Erlang. Messages are longs.
     */
    abstract static class Box {
        /** Receive (blocks). Only the owner calls it. */
        abstract long take();

        /** Send a new message (main, spawners). */
        abstract void put(long v);

        /**
         * Send from inside a process whose own mailbox is {@code own}: the
         * message cell just freed by {@code own.take()} carries the value on,
         * so a process that forwards what it received allocates nothing.
         */
        abstract void forward(Box own, long v);
    }

    static final class Node {
        long v;
        volatile Node next;
        Node(long v) { this.v = v; }
    }

    /**
     * The default mailbox: an intrusive multi-producer single-consumer linked
     * queue (Vyukov: producers swap the tail, then link the old tail) and
     * LockSupport.park/unpark of the consumer. A producer unparks only when
     * the consumer has announced itself as waiting; the announcement and the
     * link are both volatile, so one side always sees the other. The node
     * the consumer frees (the old stub) is kept as `free` and reused by the
     * consumer's next forward(): a token travelling the ring keeps one cell.
     */
    static final class ParkBox extends Box {
        private static final VarHandle TAIL;
        static {
            try {
                TAIL = MethodHandles.lookup().findVarHandle(ParkBox.class, "tail", Node.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private volatile Node tail;
        private Node head;                 // consumer only
        private Node free;                 // consumer only: a cell to send with
        private volatile Thread waiter;    // the consumer while it parks

        ParkBox() {
            Node stub = new Node(0);
            head = stub;
            tail = stub;
            free = new Node(0);            // so a process's first send allocates nothing either
        }

        private void enqueue(Node n) {
            Node prev = (Node) TAIL.getAndSet(this, n);
            prev.next = n;
            Thread w = waiter;
            if (w != null) LockSupport.unpark(w);
        }

        @Override
        void put(long v) { enqueue(new Node(v)); }

        @Override
        void forward(Box own, long v) {
            ParkBox o = (ParkBox) own;
            Node n = o.free;
            if (n == null) {
                n = new Node(v);
            } else {
                o.free = null;
                n.v = v;
                n.next = null;
            }
            enqueue(n);
        }

        @Override
        long take() {
            Node h = head;
            Node nx = h.next;
            if (nx == null) {
                int spins = SPIN;
                while (spins-- > 0 && (nx = h.next) == null) Thread.onSpinWait();
                if (nx == null) {
                    waiter = Thread.currentThread();
                    while ((nx = h.next) == null) LockSupport.park(this);
                    waiter = null;
                }
            }
            head = nx;          // nx is the new stub; its value is ours
            free = h;           // no producer touches h any more (it linked h.next before we got here)
            return nx.v;
        }
    }

    /**
     * A monitor mailbox: a linked queue under the box's own lock, the consumer
     * waits with Object.wait(), a producer wakes it with notify(). The default
     * for platform threads: HotSpot's LockSupport.unpark(thread) (behind park
     * boxes and every java.util.concurrent queue) looks the target up in the
     * VM's list of all threads, which costs O(threads) per wake-up; a monitor
     * wakes its waiter through the waiter's own park event. The dequeued cell
     * is kept as `free` and reused by the consumer's next forward().
     */
    static final class MonitorBox extends Box {
        private Node head, tail;   // under the lock
        private boolean waiting;   // under the lock
        private Node free;         // consumer only

        MonitorBox() { free = new Node(0); }

        private synchronized void enqueue(Node n) {
            if (tail == null) head = n;
            else tail.next = n;
            tail = n;
            if (waiting) notify();
        }

        @Override
        void put(long v) { enqueue(new Node(v)); }

        @Override
        void forward(Box own, long v) {
            MonitorBox o = (MonitorBox) own;
            Node n = o.free;
            if (n == null) {
                n = new Node(v);
            } else {
                o.free = null;
                n.v = v;
            }
            enqueue(n);
        }

        @Override
        long take() {
            Node h;
            synchronized (this) {
                while ((h = head) == null) {
                    waiting = true;
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    } finally {
                        waiting = false;
                    }
                }
                head = h.next;
                if (head == null) tail = null;
            }
            h.next = null;
            free = h;
            return h.v;
        }
    }

    /** A java.util.concurrent BlockingQueue as mailbox (for comparison). */
    static final class QueueBox extends Box {
        private final BlockingQueue<Long> q;

        QueueBox(BlockingQueue<Long> q) { this.q = q; }

        @Override
        void put(long v) {
            try {
                q.put(v);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        void forward(Box own, long v) { put(v); }

        @Override
        long take() {
            try {
                return q.take();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** Mailbox kind: park, mon, ltq, lbq, abq (ArrayBlockingQueue(1)), sq; default per flavor. */
    static final String MAILBOX = System.getProperty("ringbench.mailbox", Flavor.MAILBOX);
    /** Busy-wait iterations before parking in ParkBox.take (0 = park at once). */
    static final int SPIN = Integer.getInteger("ringbench.spin", 0);

    static Box newBox() {
        return switch (MAILBOX) {
            case "park" -> new ParkBox();
            case "mon" -> new MonitorBox();
            case "ltq" -> new QueueBox(new LinkedTransferQueue<>());
            case "lbq" -> new QueueBox(new LinkedBlockingQueue<>());
            case "abq" -> new QueueBox(new ArrayBlockingQueue<>(1));
            case "sq" -> new QueueBox(new SynchronousQueue<>());
            default -> throw failure("unknown -Dringbench.mailbox=" + MAILBOX);
        };
    }

    // --------------------------------------------------------------- processes

    static final boolean VIRTUAL = Flavor.VIRTUAL;
    /** Requested stack size of a platform thread, bytes (HotSpot rounds up to its minimum). */
    static final long STACK = Long.getLong("ringbench.stack", Flavor.STACK);
    static final ThreadFactory VFACTORY = VIRTUAL ? Thread.ofVirtual().factory() : null;

    static Thread newProc(Runnable r) {
        if (VIRTUAL) return VFACTORY.newThread(r);
        Thread t = new Thread(null, r, "ringbench-p", STACK, false);
        t.setDaemon(true);
        return t;
    }

    /** Start a process; a failure to create the thread is a `limit` error. */
    static void start(Thread t, long started, long wanted) {
        try {
            t.start();
        } catch (OutOfMemoryError e) {
            // The VM ends, taking the started threads with it.
            die("limit", 3, "could not start process " + (started + 1) + " of " + wanted + ": " + e.getMessage()
                    + (VIRTUAL ? "; raise the heap with RINGBENCH_JAVA_OPTS=-Xmx<size>"
                            : "; check kernel.pid_max, kernel.threads-max, vm.max_map_count (sysctl), ulimit -u and free memory"));
        }
    }

    // ring: a token is a value v >= 1; the stop message is -(sum+1); main hears 0 per finished token.
    static final class RingProc implements Runnable {
        final Box in, next, stopTo, main;
        final CountDownLatch ready;

        RingProc(Box in, Box next, Box stopTo, Box main, CountDownLatch ready) {
            this.in = in; this.next = next; this.stopTo = stopTo; this.main = main; this.ready = ready;
        }

        @Override
        public void run() {
            final Box in = this.in, next = this.next, main = this.main;
            ready.countDown();
            long count = 0;
            for (;;) {
                long v = in.take();
                if (v > 0) {
                    count++;
                    if (v == 1) main.forward(in, 0);
                    else next.forward(in, v - 1);
                } else {
                    stopTo.forward(in, v - count); // -(sum+1) - count = -(sum+count+1)
                    return;
                }
            }
        }
    }

    // continuous ring: tokens never finish; p0 counts laps.
    static final class LoopProc implements Runnable {
        final Box in, next;
        final AtomicLong laps; // only p0's is non-null
        final CountDownLatch ready;

        LoopProc(Box in, Box next, AtomicLong laps, CountDownLatch ready) {
            this.in = in; this.next = next; this.laps = laps; this.ready = ready;
        }

        @Override
        public void run() {
            final Box in = this.in, next = this.next;
            final AtomicLong laps = this.laps;
            ready.countDown();
            for (;;) {
                long v = in.take();
                if (laps != null) laps.getAndIncrement();
                next.forward(in, v);
            }
        }
    }

    // trace: a token is (v << 7) | (from + 1); prints a hop record as it happens.
    static final class TraceProc implements Runnable {
        final int idx, n;
        final long total;
        final boolean print;
        final Box in, next, stopTo, main;
        final CountDownLatch ready;

        TraceProc(int idx, int n, long total, boolean print, Box in, Box next, Box stopTo, Box main, CountDownLatch ready) {
            this.idx = idx; this.n = n; this.total = total; this.print = print;
            this.in = in; this.next = next; this.stopTo = stopTo; this.main = main; this.ready = ready;
        }

        @Override
        public void run() {
            ready.countDown();
            long count = 0;
            for (;;) {
                long x = in.take();
                if (x >= 0) {
                    long v = x >>> 7;
                    long from = (x & 127) - 1;
                    long hop = total - v + 1;
                    count++;
                    if (print) {
                        emit("{\"type\":\"hop\",\"hop\":" + hop + ",\"lap\":" + ((hop - 1) / n + 1)
                                + ",\"from\":" + from + ",\"to\":" + idx + "}");
                    }
                    if (v == 1) main.forward(in, 0);
                    else next.forward(in, ((v - 1) << 7) | (idx + 1));
                } else {
                    stopTo.forward(in, x - count);
                    return;
                }
            }
        }
    }

    // ------------------------------------------------------------ measurement

    static String cpuClockName;
    static final LongSupplier CPU = cpuClock();

    /** Process CPU time in ns: clock_gettime(CLOCK_PROCESS_CPUTIME_ID) through FFM, else the MXBean. */
    static LongSupplier cpuClock() {
        try {
            LongSupplier s = (LongSupplier) Class.forName("CpuFfm").getDeclaredConstructor().newInstance();
            if (s.getAsLong() > 0) {
                cpuClockName = "clock_gettime";
                return s;
            }
        } catch (Throwable ignored) {
            // JDK 21 (no final FFM) or no native access: fall back.
        }
        cpuClockName = "mxbean";
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        return os::getProcessCpuTime;
    }

    static long cpu() { return CPU.getAsLong(); }

    static long rss() {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (l.startsWith("VmRSS:")) {
                    String[] f = l.trim().split("\\s+");
                    return Long.parseLong(f[1]) * 1024;
                }
            }
        } catch (IOException | RuntimeException ignored) {
        }
        return 0;
    }

    static long heapUsed() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** GC counts and times, for the stats record. */
    static final class GcSnap {
        final long[] counts, times;
        final List<GarbageCollectorMXBean> beans = ManagementFactory.getGarbageCollectorMXBeans();

        GcSnap() {
            counts = new long[beans.size()];
            times = new long[beans.size()];
            for (int i = 0; i < beans.size(); i++) {
                counts[i] = Math.max(0, beans.get(i).getCollectionCount());
                times[i] = Math.max(0, beans.get(i).getCollectionTime());
            }
        }
    }

    static String snake(String s) {
        return s.toLowerCase().replaceAll("[^a-z0-9]+", "_").replaceAll("^_|_$", "");
    }

    static void emitStats(long iteration, GcSnap before, GcSnap after) {
        Rec r = new Rec("stats").n("iteration", iteration);
        long c = 0, t = 0;
        for (int i = 0; i < after.counts.length; i++) {
            c += after.counts[i] - before.counts[i];
            t += after.times[i] - before.times[i];
        }
        r.n("gc_count", c).n("gc_time_ms", t);
        for (int i = 0; i < after.counts.length; i++) {
            String name = "gc_" + snake(after.beans.get(i).getName());
            r.n(name + "_count", after.counts[i] - before.counts[i]);
            r.n(name + "_time_ms", after.times[i] - before.times[i]);
        }
        var heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        r.n("heap_used", heap.getUsed()).n("heap_committed", heap.getCommitted()).n("heap_max", heap.getMax());
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit != null && jit.isCompilationTimeMonitoringSupported()) r.n("jit_time_ms_total", jit.getTotalCompilationTime());
        r.n("platform_threads", ManagementFactory.getThreadMXBean().getThreadCount());
        r.emit();
    }

    /** One measured iteration's numbers. */
    static final class Result {
        long count, setupNs, runNs, setupCpu, runCpu, rssBefore, rssAfter, memBefore = -1, memAfter = -1;
        GcSnap gc0, gc1;
    }

    // ------------------------------------------------------------------ limits

    /** First line of a small file. (Files.readString misreads /proc/sys files, whose size is 0.) */
    static String firstLine(String path) throws IOException {
        try (var r = Files.newBufferedReader(Path.of(path))) {
            String l = r.readLine();
            return l == null ? "" : l;
        }
    }

    static long readLong(String path, long dflt) {
        try {
            return Long.parseLong(firstLine(path).trim());
        } catch (IOException | RuntimeException e) {
            return dflt;
        }
    }

    /** Tasks (threads) now alive on the whole machine: the 4th field of /proc/loadavg, "running/total". */
    static long machineTasks() {
        try {
            String[] f = firstLine("/proc/loadavg").trim().split("\\s+");
            return Long.parseLong(f[3].substring(f[3].indexOf('/') + 1));
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    static long memAvailable() {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (l.startsWith("MemAvailable:")) return Long.parseLong(l.trim().split("\\s+")[1]) * 1024;
            }
        } catch (IOException | RuntimeException ignored) {
        }
        return Long.MAX_VALUE;
    }

    static final long MARGIN_TASKS = 256;

    /** Refuse (kind `limit`) before spawning what the machine or the VM cannot hold. */
    static void checkLimits(long procs) {
        if (VIRTUAL) {
            Runtime rt = Runtime.getRuntime();
            long need = procs * Flavor.BYTES_PER_PROC + (64L << 20);
            long heapFree = rt.maxMemory() - (rt.totalMemory() - rt.freeMemory());
            if (need > heapFree) {
                throw limit(procs + " virtual threads need about " + mib(need) + " of Java heap but the heap limit leaves "
                        + mib(heapFree) + " (max heap " + mib(rt.maxMemory()) + "); raise it with RINGBENCH_JAVA_OPTS=-Xmx"
                        + (((need + rt.maxMemory()) >> 30) + 1) + "g");
            }
            long avail = memAvailable();
            if (need > avail) {
                throw limit(procs + " virtual threads need about " + mib(need) + " of memory but MemAvailable is "
                        + mib(avail) + "; free memory or use a smaller n");
            }
            return;
        }
        long tasks = machineTasks();
        long pidMax = readLong("/proc/sys/kernel/pid_max", Long.MAX_VALUE);
        if (tasks + procs + MARGIN_TASKS > pidMax) {
            throw limit(procs + " OS threads requested but kernel.pid_max=" + pidMax + " and " + tasks
                    + " tasks already exist (a margin of " + MARGIN_TASKS + " is kept); raise it with: sysctl -w kernel.pid_max=4194304");
        }
        long threadsMax = readLong("/proc/sys/kernel/threads-max", Long.MAX_VALUE);
        if (tasks + procs + MARGIN_TASKS > threadsMax) {
            throw limit(procs + " OS threads requested but kernel.threads-max=" + threadsMax + " and " + tasks
                    + " tasks already exist; raise it with: sysctl -w kernel.threads-max=" + 2 * (tasks + procs + MARGIN_TASKS));
        }
        long maxMap = readLong("/proc/sys/vm/max_map_count", Long.MAX_VALUE);
        long maps = 0;
        try (var lines = Files.lines(Path.of("/proc/self/maps"))) {
            maps = lines.count();
        } catch (IOException | RuntimeException ignored) {
        }
        // Each Java thread's stack is two mappings (HotSpot's guard zone + the usable stack).
        if (maps + 2 * procs + 1024 > maxMap) {
            throw limit(procs + " OS threads need about " + (2 * procs) + " memory mappings (2 per Java thread stack) but vm.max_map_count="
                    + maxMap + " and this process already has " + maps + "; raise it with: sysctl -w vm.max_map_count="
                    + Math.max(262144, 2 * (maps + 2 * procs + 1024)));
        }
        long nproc = rlimitNproc();
        if (nproc >= 0 && !isRoot() && tasks + procs + MARGIN_TASKS > nproc) {
            throw limit(procs + " OS threads requested but the process limit (ulimit -u, RLIMIT_NPROC) is " + nproc
                    + " and up to " + tasks + " tasks already exist; raise it with: ulimit -u unlimited (or limits.conf nproc)");
        }
        long need = procs * Flavor.BYTES_PER_PROC;
        long avail = memAvailable();
        if (need > avail) {
            throw limit(procs + " OS threads need about " + mib(need) + " of memory but MemAvailable is " + mib(avail)
                    + "; free memory or use a smaller n");
        }
    }

    static String mib(long b) { return (b >> 20) + " MiB"; }

    static long rlimitNproc() {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/self/limits"))) {
                if (l.startsWith("Max processes")) {
                    String soft = l.substring("Max processes".length()).trim().split("\\s+")[0];
                    return soft.equals("unlimited") ? -1 : Long.parseLong(soft);
                }
            }
        } catch (IOException | RuntimeException ignored) {
        }
        return -1;
    }

    static boolean isRoot() {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (l.startsWith("Uid:")) return l.substring(4).trim().split("\\s+")[0].equals("0");
            }
        } catch (IOException | RuntimeException ignored) {
        }
        return false;
    }

    // --------------------------------------------------------------- workloads

    static void joinAll(Thread[] ts) throws InterruptedException {
        for (Thread t : ts) if (t != null) t.join();
    }

    static Result ring(int n, long m, int tokens) throws InterruptedException {
        Result r = new Result();
        Box[] boxes = new Box[n];
        Thread[] threads = new Thread[n];
        CountDownLatch ready = new CountDownLatch(n);
        final long value = (long) n * m;
        r.gc0 = new GcSnap();
        r.rssBefore = rss();
        r.memBefore = heapUsed();

        long c0 = cpu(), t0 = System.nanoTime();
        Box main = newBox();
        for (int i = 0; i < n; i++) boxes[i] = newBox();
        for (int i = 0; i < n; i++) {
            Box next = boxes[i + 1 == n ? 0 : i + 1];
            Thread t = newProc(new RingProc(boxes[i], next, i + 1 == n ? main : next, main, ready));
            threads[i] = t;
            start(t, i, n);
        }
        ready.await();
        long t1 = System.nanoTime(), c1 = cpu();

        r.rssAfter = rss();
        r.memAfter = heapUsed();

        long c2 = cpu(), t2 = System.nanoTime();
        for (int j = 0; j < tokens; j++) boxes[(int) ((long) j * n / tokens)].put(value);
        for (int j = 0; j < tokens; j++) main.take();
        long t3 = System.nanoTime(), c3 = cpu();
        r.gc1 = new GcSnap();

        boxes[0].put(-1);
        r.count = -main.take() - 1;
        joinAll(threads);
        r.setupNs = t1 - t0; r.setupCpu = c1 - c0;
        r.runNs = t3 - t2; r.runCpu = c3 - c2;
        return r;
    }

    static void ringContinuous(int n, int tokens, long sampleMs, long samples) throws InterruptedException {
        Box[] boxes = new Box[n];
        CountDownLatch ready = new CountDownLatch(n);
        AtomicLong laps = new AtomicLong();
        for (int i = 0; i < n; i++) boxes[i] = newBox();
        for (int i = 0; i < n; i++) {
            start(newProc(new LoopProc(boxes[i], boxes[i + 1 == n ? 0 : i + 1], i == 0 ? laps : null, ready)), i, n);
        }
        ready.await();
        long t0 = System.nanoTime();
        for (int j = 0; j < tokens; j++) boxes[(int) ((long) j * n / tokens)].put(1);
        long period = sampleMs * 1_000_000L;
        for (long s = 1; s <= samples; s++) {
            long due = t0 + s * period, now;
            while ((now = System.nanoTime()) < due) LockSupport.parkNanos(due - now);
            long count = laps.get() * n;
            long el = System.nanoTime() - t0;
            new Rec("sample").n("seq", s).n("elapsed_ns", el).n("count", count).emit();
        }
        OUT.flush();
        Runtime.getRuntime().halt(0); // no teardown (section 5)
    }

    static Result trace(int n, int m, boolean print) throws InterruptedException {
        Result r = new Result();
        Box[] boxes = new Box[n];
        Thread[] threads = new Thread[n];
        CountDownLatch ready = new CountDownLatch(n);
        long total = (long) n * m;
        r.gc0 = new GcSnap();
        r.rssBefore = rss();
        long c0 = cpu(), t0 = System.nanoTime();
        Box main = newBox();
        for (int i = 0; i < n; i++) boxes[i] = newBox();
        for (int i = 0; i < n; i++) {
            Box next = boxes[i + 1 == n ? 0 : i + 1];
            threads[i] = newProc(new TraceProc(i, n, total, print, boxes[i], next, i + 1 == n ? main : next, main, ready));
            start(threads[i], i, n);
        }
        ready.await();
        long t1 = System.nanoTime(), c1 = cpu();
        r.rssAfter = rss();
        long c2 = cpu(), t2 = System.nanoTime();
        boxes[0].put(total << 7); // from = -1
        main.take();
        long t3 = System.nanoTime(), c3 = cpu();
        r.gc1 = new GcSnap();
        boxes[0].put(-1);
        r.count = -main.take() - 1;
        joinAll(threads);
        r.setupNs = t1 - t0; r.setupCpu = c1 - c0;
        r.runNs = t3 - t2; r.runCpu = c3 - c2;
        return r;
    }

    static Result spawn(int n) throws InterruptedException {
        Result r = new Result();
        Box[] boxes = new Box[n];
        Thread[] threads = new Thread[n];
        r.gc0 = new GcSnap();
        r.rssBefore = rss();
        r.memBefore = heapUsed();
        long c0 = cpu(), t0 = System.nanoTime();
        final Box main = newBox();
        for (int i = 0; i < n; i++) {
            final Box in = boxes[i] = newBox();
            Thread t = threads[i] = newProc(() -> {
                main.forward(in, 1);   // the cell was made by the spawner with the mailbox
                in.take();
            });
            start(t, i, n);
        }
        long ready = 0;
        for (int i = 0; i < n; i++) ready += main.take();
        long t1 = System.nanoTime(), c1 = cpu();
        r.gc1 = new GcSnap();
        r.rssAfter = rss();
        System.gc(); // untimed: the heap in use by n idle processes, garbage left out
        r.memAfter = heapUsed();
        for (int i = 0; i < n; i++) boxes[i].put(0);
        joinAll(threads);
        r.count = ready;
        r.setupNs = t1 - t0; r.setupCpu = c1 - c0;
        return r;
    }

    static Result pingpong(long m) throws InterruptedException {
        Result r = new Result();
        r.gc0 = new GcSnap();
        r.rssBefore = rss();
        CountDownLatch ready = new CountDownLatch(2);
        long c0 = cpu(), t0 = System.nanoTime();
        final Box main = newBox(), a = newBox(), b = newBox();
        Thread ta = newProc(() -> {
            ready.countDown();
            a.take(); // start
            for (long i = 0; i < m; i++) {
                b.forward(a, 1);
                a.take();
            }
            main.forward(a, 0);
            b.put(-1);
        });
        Thread tb = newProc(() -> {
            ready.countDown();
            long c = 0;
            for (;;) {
                long v = b.take();
                if (v < 0) break;
                c++;
                a.forward(b, 1);
            }
            main.forward(b, -(c + 1));
        });
        start(ta, 0, 2);
        start(tb, 1, 2);
        ready.await();
        long t1 = System.nanoTime(), c1 = cpu();
        r.rssAfter = rss();
        long c2 = cpu(), t2 = System.nanoTime();
        a.put(1);
        main.take();
        long t3 = System.nanoTime(), c3 = cpu();
        r.gc1 = new GcSnap();
        r.count = -main.take() - 1;
        ta.join();
        tb.join();
        r.setupNs = t1 - t0; r.setupCpu = c1 - c0;
        r.runNs = t3 - t2; r.runCpu = c3 - c2;
        return r;
    }

    static Result fanin(int n, long m) throws InterruptedException {
        Result r = new Result();
        Thread[] threads = new Thread[n + 1];
        CountDownLatch ready = new CountDownLatch(n + 1);
        CountDownLatch go = new CountDownLatch(1);
        r.gc0 = new GcSnap();
        r.rssBefore = rss();
        long c0 = cpu(), t0 = System.nanoTime();
        final Box main = newBox(), rx = newBox();
        threads[n] = newProc(() -> {
            ready.countDown();
            long got = 0, done = 0;
            while (done < n) {
                if (rx.take() > 0) got++;
                else done++;
            }
            main.forward(rx, -(got + 1));
        });
        start(threads[n], 0, n + 1);
        for (int i = 0; i < n; i++) {
            threads[i] = newProc(() -> {
                ready.countDown();
                try {
                    go.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                for (long k = 0; k < m; k++) rx.put(1);
                rx.put(0); // this sender is done
            });
            start(threads[i], i + 1, n + 1);
        }
        ready.await();
        long t1 = System.nanoTime(), c1 = cpu();
        r.rssAfter = rss();
        long c2 = cpu(), t2 = System.nanoTime();
        go.countDown();
        long got = -main.take() - 1;
        long t3 = System.nanoTime(), c3 = cpu();
        r.gc1 = new GcSnap();
        joinAll(threads);
        r.count = got;
        r.setupNs = t1 - t0; r.setupCpu = c1 - c0;
        r.runNs = t3 - t2; r.runCpu = c3 - c2;
        return r;
    }

    // -------------------------------------------------------------- arguments

    record Key(String name, long lo, long hi, long dflt, boolean required) {}

    static final long N_MAX = 10_000_000L, M_MAX = 1_000_000_000L;

    static List<Key> keysFor(String workload) {
        List<Key> k = new ArrayList<>();
        switch (workload) {
            case "ring" -> {
                k.add(new Key("n", 1, N_MAX, 0, true));
                k.add(new Key("m", 1, M_MAX, 0, true));
                k.add(new Key("tokens", 1, N_MAX, 1, false));
            }
            case "spawn" -> k.add(new Key("n", 1, N_MAX, 0, true));
            case "pingpong" -> k.add(new Key("m", 1, M_MAX, 0, true));
            case "fanin" -> {
                k.add(new Key("n", 1, N_MAX, 0, true));
                k.add(new Key("m", 1, M_MAX, 0, true));
            }
            case "selective" -> {
                k.add(new Key("n", 1, N_MAX, 0, true));
                k.add(new Key("m", 1, M_MAX, 0, true));
                k.add(new Key("reverse", 0, 1, 0, false));
            }
            case "trace" -> {
                k.add(new Key("n", 1, 100, 0, true));
                k.add(new Key("m", 1, 100, 0, true));
            }
            default -> {
                return null;
            }
        }
        k.add(new Key("repeats", 1, 1_000_000, 1, false));
        k.add(new Key("warmup", 0, 1_000_000, 0, false));
        k.add(new Key("cores", 1, 1_000_000, 0, false));
        k.add(new Key("sample_ms", 0, 86_400_000, 0, false));
        k.add(new Key("samples", 1, 1_000_000_000, 3, false));
        k.add(new Key("stats", 0, 1, 0, false));
        return k;
    }

    static String range(Key k) {
        return k.hi() == 1 && k.lo() == 0 ? "0 or 1" : "an integer in " + k.lo() + ".." + k.hi();
    }

    static Map<String, Long> parse(String workload, List<Key> keys, String[] args, int from) {
        Map<String, Key> byName = new LinkedHashMap<>();
        for (Key k : keys) byName.put(k.name(), k);
        Map<String, Long> v = new HashMap<>();
        for (int i = from; i < args.length; i++) {
            String a = args[i];
            int eq = a.indexOf('=');
            if (eq <= 0) throw badParam("expected key=value, got '" + a + "'");
            String name = a.substring(0, eq), raw = a.substring(eq + 1);
            Key k = byName.get(name);
            if (k == null) throw badParam("unknown key '" + name + "' for workload " + workload + " (known: " + String.join(", ", byName.keySet()) + ")");
            if (v.containsKey(name)) throw badParam("key '" + name + "' given twice");
            if (!raw.matches("-?[0-9]+")) throw badParam(name + " must be " + range(k) + ", got '" + raw + "'");
            long x;
            try {
                x = Long.parseLong(raw);
            } catch (NumberFormatException e) {
                throw badParam(name + " must be " + range(k) + ", got '" + raw + "'");
            }
            if (x < k.lo() || x > k.hi()) throw badParam(name + " must be " + range(k) + ", got '" + raw + "'");
            v.put(name, x);
        }
        for (Key k : keys) {
            if (!v.containsKey(k.name())) {
                if (k.required()) throw badParam("missing key '" + k.name() + "' for workload " + workload);
                v.put(k.name(), k.dflt());
            }
        }
        if (workload.equals("ring")) {
            long n = v.get("n"), m = v.get("m"), t = v.get("tokens");
            if (t > n) throw badParam("tokens must be <= n (" + n + "), got '" + t + "'");
            boolean ok;
            try {
                ok = Math.multiplyExact(Math.multiplyExact(n, m), t) < (1L << 62);
            } catch (ArithmeticException e) {
                ok = false;
            }
            if (!ok) throw badParam("n*m*tokens must be < 2^62, got n=" + n + " m=" + m + " tokens=" + t);
        }
        if (v.get("sample_ms") > 0 && !workload.equals("ring")) {
            throw new Fail("unsupported", 2, "continuous mode (sample_ms>0) is defined for the ring workload only");
        }
        return v;
    }

    static final List<String> WORKLOADS = List.of("ring", "spawn", "pingpong", "fanin", "trace");

    static void describe() {
        new Rec("describe").n("contract", 1).s("name", Flavor.NAME).s("runtime", "Java")
                .s("version", Runtime.version().toString())
                .raw("workloads", "[\"ring\",\"spawn\",\"pingpong\",\"fanin\",\"trace\"]")
                .raw("features", "[\"tokens\",\"continuous\",\"stats\"]")
                .s("variant", "")
                .s("vm", System.getProperty("java.vm.name", "") + " " + System.getProperty("java.vm.version", ""))
                .s("thread_kind", VIRTUAL ? "virtual" : "platform")
                .s("mailbox", MAILBOX)
                .s("cpu_clock", cpuClockName)
                .emit();
    }

    static void run(String workload, Map<String, Long> p) throws InterruptedException {
        long repeats = p.get("repeats"), warmup = p.get("warmup");
        boolean stats = p.get("stats") == 1;
        if (workload.equals("ring") && p.get("sample_ms") > 0) {
            int n = (int) (long) p.get("n");
            checkLimits(n);
            ringContinuous(n, (int) (long) p.get("tokens"), p.get("sample_ms"), p.get("samples"));
            return;
        }
        long procs = switch (workload) {
            case "ring", "spawn", "trace" -> p.get("n");
            case "fanin" -> p.get("n") + 1;
            default -> 2;
        };
        checkLimits(procs);
        for (long it = 1 - warmup; it <= repeats; it++) {
            System.gc(); // untimed: start every iteration from a clean heap
            Result r;
            Rec rec = new Rec("result").s("workload", workload).n("iteration", Math.max(it, 0));
            long expect;
            switch (workload) {
                case "ring" -> {
                    int n = (int) (long) p.get("n");
                    long m = p.get("m");
                    int t = (int) (long) p.get("tokens");
                    r = ring(n, m, t);
                    rec.n("n", n).n("m", m).n("tokens", t);
                    expect = (long) n * m * t;
                }
                case "spawn" -> {
                    int n = (int) (long) p.get("n");
                    r = spawn(n);
                    rec.n("n", n);
                    expect = n;
                }
                case "pingpong" -> {
                    long m = p.get("m");
                    r = pingpong(m);
                    rec.n("m", m);
                    expect = m;
                }
                case "fanin" -> {
                    int n = (int) (long) p.get("n");
                    long m = p.get("m");
                    r = fanin(n, m);
                    rec.n("n", n).n("m", m);
                    expect = n * m;
                }
                case "trace" -> {
                    int n = (int) (long) p.get("n");
                    int m = (int) (long) p.get("m");
                    r = trace(n, m, it >= 1);
                    rec.n("n", n).n("m", m);
                    expect = (long) n * m;
                }
                default -> throw new Fail("unknown_workload", 2, "unknown workload '" + workload + "'");
            }
            if (r.count != expect) {
                throw failure(workload + ": count " + r.count + " != expected " + expect);
            }
            if (it < 1) continue; // warm-up
            rec.n("count", r.count).n("setup_ns", r.setupNs).n("run_ns", r.runNs)
                    .n("setup_cpu_ns", r.setupCpu).n("run_cpu_ns", r.runCpu)
                    .n("rss_before", r.rssBefore).n("rss_after", r.rssAfter);
            if (r.memBefore >= 0) rec.n("runtime_mem_before", r.memBefore).n("runtime_mem_after", r.memAfter);
            rec.emit();
            if (stats) emitStats(it, r.gc0, r.gc1);
        }
    }

    public static void main(String[] args) {
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
            if (e instanceof OutOfMemoryError) {
                die("limit", 3, "out of memory in a process (" + e.getMessage() + "); raise the heap with RINGBENCH_JAVA_OPTS=-Xmx<size> or use a smaller n");
            } else if (e instanceof StackOverflowError) {
                die("limit", 3, "stack overflow in a process; raise the stack with RINGBENCH_JAVA_OPTS=-Dringbench.stack=<bytes>");
            } else {
                die("failure", 1, "uncaught " + e);
            }
        });
        try {
            if (args.length == 0) throw badParam("usage: describe | run <workload> key=value ...");
            switch (args[0]) {
                case "describe" -> {
                    if (args.length != 1) throw badParam("describe takes no arguments");
                    describe();
                }
                case "run" -> {
                    if (args.length < 2) throw badParam("usage: run <workload> key=value ...");
                    String w = args[1];
                    List<Key> keys = keysFor(w);
                    if (keys == null) {
                        throw new Fail("unknown_workload", 2, "unknown workload '" + w + "' (known: " + String.join(", ", WORKLOADS) + ")");
                    }
                    Map<String, Long> p = parse(w, keys, args, 2);
                    if (w.equals("selective")) {
                        throw new Fail("unsupported", 2, "Java has no selective receive: a BlockingQueue or mailbox can only "
                                + "take its head, so a receive that skips non-matching messages would be an emulation, not the runtime's own");
                    }
                    run(w, p);
                }
                default -> throw badParam("unknown verb '" + args[0] + "' (usage: describe | run <workload> key=value ...)");
            }
            OUT.flush();
            System.exit(0);
        } catch (Fail f) {
            die(f.kind, f.code, f.getMessage());
        } catch (OutOfMemoryError e) {
            die("limit", 3, "out of memory (" + e.getMessage() + "); raise the heap with RINGBENCH_JAVA_OPTS=-Xmx<size> or use a smaller n");
        } catch (Throwable e) {
            die("failure", 1, String.valueOf(e));
        }
    }
}
