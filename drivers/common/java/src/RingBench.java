// ringbench driver for the JVM, shared by drivers/java-threads (one platform
// thread per process) and drivers/java-virtual (one virtual thread per process):
// each driver's build.sh compiles this folder with its own src/Flavor.java, which
// says which. The variant's JVM settings come from the driver's run.sh.
//
// Contract: docs/driver-contract.md (version 2). stdout carries JSON Lines only.

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
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
        /**
         * Called once by the owner before its first take, so that take itself
         * need not ask who is taking (the hand-off slot records its owner here).
         */
        void bind() {}

        /** Receive (blocks). Only the owner calls it, after bind(). */
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
        private static final VarHandle TAIL, WAITER;
        static {
            try {
                MethodHandles.Lookup l = MethodHandles.lookup();
                TAIL = l.findVarHandle(ParkBox.class, "tail", Node.class);
                WAITER = l.findVarHandle(ParkBox.class, "waiter", Thread.class);
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
            Node n;
            ParkBox o = own instanceof ParkBox b ? b : null; // a slot (handoff) forwards with a new cell
            if (o == null || (n = o.free) == null) {
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
                    // The announcement must be volatile: it and the producer's link
                    // (also volatile) are a Dekker pair, so one side sees the other.
                    waiter = Thread.currentThread();
                    while ((nx = h.next) == null) LockSupport.park(this);
                    // The withdrawal needs no fence (a release store, a plain
                    // mov on x86, instead of a volatile store's locked add): a
                    // producer that still reads this thread only unparks it for
                    // nothing, leaving a permit that makes one later park return
                    // at once, and every park here re-tests its condition. It
                    // cannot hide the next announcement: this store precedes that
                    // volatile store in program order, and a volatile read that
                    // follows the announcement in the synchronization order
                    // cannot return a write that happens-before the
                    // announcement (the acquire/release/volatile modes of
                    // java.lang.invoke.VarHandle follow C++11's memory model).
                    WAITER.setRelease(this, null);
                }
            }
            head = nx;          // nx is the new stub; its value is ours
            free = h;           // no producer touches h any more (it linked h.next before we got here)
            return nx.v;
        }
    }

    /**
     * A monitor mailbox (for comparison): a linked queue under the box's own
     * lock, the consumer waits with Object.wait(), a producer wakes it with
     * notify(). The dequeued cell is kept as `free` and reused by the
     * consumer's next forward().
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
            Node n;
            MonitorBox o = own instanceof MonitorBox b ? b : null;
            if (o == null || (n = o.free) == null) {
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

    /**
     * The hand-off (java-threads/handoff, -Dringbench.mailbox=slot): no queue and
     * no message object. One value slot per process; a hop writes the value into
     * the next process's slot and unparks that process, which takes the value
     * from its own slot or parks until one comes: the idiom of the Benchmarks
     * Game Java thread-ring program, which passes one token. Several tokens can
     * meet, so a writer that finds the slot still full announces itself and
     * parks; the owner wakes it after taking the value. A slot has at most two
     * writers at a time, its ring predecessor (forward) and the main thread
     * (put), each with its own announcement, so a process's slot suits the
     * ring, trace, spawn and pingpong; boxes with many writers (the main
     * thread's, fanin's receiver) stay mailboxes (newSharedBox).
     */
    static final class SlotBox extends Box {
        private static final long EMPTY = Long.MIN_VALUE; // never sent: values are > -2^62
        private static final VarHandle VALUE, WAIT_FWD, WAIT_PUT;
        static {
            try {
                MethodHandles.Lookup l = MethodHandles.lookup();
                VALUE = l.findVarHandle(SlotBox.class, "value", long.class);
                WAIT_FWD = l.findVarHandle(SlotBox.class, "waitFwd", Thread.class);
                WAIT_PUT = l.findVarHandle(SlotBox.class, "waitPut", Thread.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private volatile long value = EMPTY;
        private volatile Thread owner;               // set by the owner in bind(), before its first take
        private volatile Thread waitFwd, waitPut;    // a writer waiting for the slot to empty

        private void write(long v, boolean fwd) {
            if (!VALUE.compareAndSet(this, EMPTY, v)) full(v, fwd);
            // Before bind() the owner is not known; it looks at its slot
            // after announcing itself (bind) and before it first parks.
            Thread o = owner;
            if (o != null) LockSupport.unpark(o);
        }

        /** The slot is full (several tokens): announce this writer, retry, park until woken. */
        private void full(long v, boolean fwd) {
            Thread me = Thread.currentThread();
            for (;;) {
                if (fwd) waitFwd = me;
                else waitPut = me;
                if (VALUE.compareAndSet(this, EMPTY, v)) return;
                LockSupport.park(this);
            }
        }

        @Override
        void put(long v) { write(v, false); }

        @Override
        void forward(Box own, long v) { write(v, true); }

        @Override
        void bind() { owner = Thread.currentThread(); }

        @Override
        long take() {
            for (;;) {
                long v = value;
                if (v != EMPTY) {
                    value = EMPTY; // only the owner empties the slot; writers only fill it
                    if (waitFwd != null || waitPut != null) wakeWriters();
                    return v;
                }
                LockSupport.park(this);
            }
        }

        private void wakeWriters() {
            Thread w = (Thread) WAIT_FWD.getAndSet(this, null);
            if (w != null) LockSupport.unpark(w);
            w = (Thread) WAIT_PUT.getAndSet(this, null);
            if (w != null) LockSupport.unpark(w);
        }
    }

    /**
     * Mailbox kind: park (the driver's ParkBox), slot (the hand-off above), and
     * for comparison mon, ltq, lbq, abq (ArrayBlockingQueue(1)), sq: see the READMEs.
     */
    static final String MAILBOX = System.getProperty("ringbench.mailbox", "park");
    /** Busy-wait iterations before parking in ParkBox.take (0 = park at once). */
    static final int SPIN = Integer.getInteger("ringbench.spin", 0);

    /** A box with many writers (the main thread's, fanin's receiver): a mailbox even in the hand-off. */
    static Box newSharedBox() {
        return MAILBOX.equals("slot") ? new ParkBox() : newBox();
    }

    /** A process's own box: written by at most its predecessor (or peer) and the main thread. */
    static Box newBox() {
        return switch (MAILBOX) {
            case "park" -> new ParkBox();
            case "slot" -> new SlotBox();
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
    /** The variant this invocation runs, as run.sh names it (describe echoes it). */
    static final String VARIANT = System.getProperty("ringbench.variant", "");
    /**
     * Requested stack size of a platform thread in bytes, given to the Thread
     * constructor; 0 (stock) leaves the JVM's default (-Xss, 1 MiB on x86-64 Linux).
     */
    static final long STACK = Long.getLong("ringbench.stack", 0);
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

    /**
     * The ready signals of a spawn phase: each process calls signal()
     * immediately before its first blocking receive; the main thread waits in
     * await() until it has seen them all and reports the count it saw.
     */
    static final class Ready {
        private final AtomicLong seen = new AtomicLong();
        private final long wanted;
        private final Thread waiter = Thread.currentThread();

        Ready(long wanted) { this.wanted = wanted; }

        void signal() {
            if (seen.incrementAndGet() == wanted) LockSupport.unpark(waiter);
        }

        long await() {
            long s;
            while ((s = seen.get()) < wanted) LockSupport.park(this);
            return s;
        }
    }

    // ring: a token is a value v >= 1; the stop message is -(sum+1); main hears 0 per finished token.
    static final class RingProc implements Runnable {
        final Box in, next, stopTo, main;
        final Ready ready;

        RingProc(Box in, Box next, Box stopTo, Box main, Ready ready) {
            this.in = in; this.next = next; this.stopTo = stopTo; this.main = main; this.ready = ready;
        }

        @Override
        public void run() {
            final Box in = this.in, next = this.next, main = this.main;
            in.bind();
            ready.signal();
            long count = 0; // this process's receipts, for the proof
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
        final Ready ready;

        LoopProc(Box in, Box next, AtomicLong laps, Ready ready) {
            this.in = in; this.next = next; this.laps = laps; this.ready = ready;
        }

        @Override
        public void run() {
            final Box in = this.in, next = this.next;
            final AtomicLong laps = this.laps;
            in.bind();
            ready.signal();
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
        final Ready ready;

        TraceProc(int idx, int n, long total, boolean print, Box in, Box next, Box stopTo, Box main, Ready ready) {
            this.idx = idx; this.n = n; this.total = total; this.print = print;
            this.in = in; this.next = next; this.stopTo = stopTo; this.main = main; this.ready = ready;
        }

        @Override
        public void run() {
            in.bind();
            ready.signal();
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

    /** What the JDK >= 22 build adds through FFM (Ffm.java); absent on JDK 21. */
    interface Native {
        long cpuNs();

        int futexHashSlots(long slots);
    }

    static final Native NATIVE = loadNative();
    static final LongSupplier CPU = cpuClock();
    static String cpuClockName;

    static Native loadNative() {
        try {
            Native n = (Native) Class.forName("Ffm").getDeclaredConstructor().newInstance();
            return n.cpuNs() > 0 ? n : null;
        } catch (Throwable e) {
            return null; // JDK 21 build (no Ffm) or no native access
        }
    }

    /** Process CPU time in ns: clock_gettime(CLOCK_PROCESS_CPUTIME_ID) through FFM, else the MXBean (10 ms ticks). */
    static LongSupplier cpuClock() {
        if (NATIVE != null) {
            cpuClockName = "clock_gettime";
            return NATIVE::cpuNs;
        }
        cpuClockName = "mxbean";
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        return os::getProcessCpuTime;
    }

    static long cpu() { return CPU.getAsLong(); }

    /** A "Name:   123 kB" line of a /proc file, in bytes (0 if absent). */
    static long procKb(String file, String key) {
        try {
            for (String l : Files.readAllLines(Path.of(file))) {
                if (l.startsWith(key)) return Long.parseLong(l.substring(key.length()).trim().split("\\s+")[0]) * 1024;
            }
        } catch (IOException | RuntimeException ignored) {
        }
        return 0;
    }

    static long rss() { return procKb("/proc/self/status", "VmRSS:"); }

    /** The kernel's thread stacks, machine-wide (one per OS thread): what RSS does not show. */
    static long kernelStack() { return procKb("/proc/meminfo", "KernelStack:"); }

    /**
     * Java heap in use as of the latest collection: the sum over the heap's pools
     * of their usage after the collection that last processed them
     * (MemoryPoolMXBean.getCollectionUsage). Read right after the forced
     * collection it is the live heap, unaffected by TLABs handed out since (with
     * a 2 GiB young generation one TLAB is tens of MB). Read before a fresh JVM's
     * first spawn it is 0: nothing has been collected yet, and the contract
     * forces no collection there (a plain "used" figure at that point is mostly
     * start-up garbage and TLAB space, often more than the processes take).
     */
    static long heapUsed() {
        long sum = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() != MemoryType.HEAP) continue;
            MemoryUsage u = pool.getCollectionUsage();
            if (u != null) sum += u.getUsed();
        }
        return sum;
    }

    static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();
    static final List<GarbageCollectorMXBean> GCS = ManagementFactory.getGarbageCollectorMXBeans();

    /**
     * Memory around the driver process's first spawn phase (contract section 3):
     * `before` just before spawning, `after` after the collection that follows
     * the spawn phase, while every process is alive and idle. Later iterations
     * echo these values, so a warm-up cannot lend them reused memory.
     */
    static final class Mem {
        static boolean before, after;
        static long rssBefore, rssAfter, heapBefore, heapAfter, ksBefore, ksAfter;

        static void readBefore() {
            if (before) return;
            before = true;
            if (!VIRTUAL) ksBefore = kernelStack();
            heapBefore = heapUsed();
            rssBefore = rss();
        }

        /** Called right after the collection: the heap first, before this thread allocates a new TLAB. */
        static void readAfter() {
            if (after) return;
            heapAfter = heapUsed();
            after = true;
            rssAfter = rss();
            if (!VIRTUAL) ksAfter = kernelStack();
        }
    }

    /** GC counts and times per collector (ms), for the stats record. */
    static final class GcSnap {
        final long[] counts = new long[GCS.size()], times = new long[GCS.size()];

        GcSnap() {
            for (int i = 0; i < counts.length; i++) {
                counts[i] = Math.max(0, GCS.get(i).getCollectionCount());
                times[i] = Math.max(0, GCS.get(i).getCollectionTime());
            }
        }

        static long count(GcSnap a, GcSnap b) {
            long c = 0;
            for (int i = 0; i < a.counts.length; i++) c += b.counts[i] - a.counts[i];
            return c;
        }

        static long time(GcSnap a, GcSnap b) {
            long t = 0;
            for (int i = 0; i < a.times.length; i++) t += b.times[i] - a.times[i];
            return t;
        }
    }

    static String snake(String s) {
        return s.toLowerCase().replaceAll("[^a-z0-9]+", "_").replaceAll("^_|_$", "");
    }

    /** One iteration's numbers. */
    static final class Result {
        long count, ready, setupNs, runNs, setupCpu, runCpu, betweenNs;
        /** GC snapshots: before spawn, end of spawn, after the forced collection, end of the message phase. */
        GcSnap g0, g1, g2, g3;
    }

    /**
     * Untimed, between the spawn phase and the message phase, every iteration:
     * the one full collection (System.gc(); both variants leave
     * -XX:+ExplicitGCInvokesConcurrent off, so it is a full stop-the-world
     * collection), then the first spawn phase's `after` memory.
     */
    static void betweenPhases(Result r) {
        r.g1 = new GcSnap();
        long t = System.nanoTime();
        System.gc();
        Mem.readAfter();
        r.betweenNs = System.nanoTime() - t;
        r.g2 = new GcSnap();
    }

    static void emitStats(long iteration, Result r) {
        Rec s = new Rec("stats").n("iteration", iteration);
        GcSnap a = r.g0, b = r.g1, c = r.g2, d = r.g3 != null ? r.g3 : r.g2;
        // Timed phases only; the forced collection between them is reported apart.
        s.n("gc_count", GcSnap.count(a, b) + GcSnap.count(c, d)).n("gc_time_ms", GcSnap.time(a, b) + GcSnap.time(c, d));
        s.n("gc_setup_count", GcSnap.count(a, b)).n("gc_setup_time_ms", GcSnap.time(a, b));
        s.n("gc_run_count", GcSnap.count(c, d)).n("gc_run_time_ms", GcSnap.time(c, d));
        s.n("gc_between_ns", r.betweenNs);
        for (int i = 0; i < a.counts.length; i++) {
            String name = "gc_" + snake(GCS.get(i).getName());
            s.n(name + "_count", (b.counts[i] - a.counts[i]) + (d.counts[i] - c.counts[i]));
            s.n(name + "_time_ms", (b.times[i] - a.times[i]) + (d.times[i] - c.times[i]));
        }
        var heap = MEMORY.getHeapMemoryUsage();
        s.n("heap_used", heap.getUsed()).n("heap_committed", heap.getCommitted()).n("heap_max", heap.getMax());
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit != null && jit.isCompilationTimeMonitoringSupported()) s.n("jit_time_ms_total", jit.getTotalCompilationTime());
        s.n("platform_threads", ManagementFactory.getThreadMXBean().getThreadCount());
        s.emit();
    }

    // ------------------------------------------------------------ futex hash

    /**
     * java-threads/tuned only (-Dringbench.futexHash=true, see its README): since
     * Linux 6.16 a process gets a private futex hash table sized by the CPU count
     * (16 buckets on 2 cores), so with thousands of parked threads every futex
     * wake walks a long chain. Ask for slots = the next power of two >= the
     * process threads, clamped to [16, 2^22], as drivers/c-pthreads does;
     * RINGBENCH_FUTEX_HASH_SLOTS overrides the count (negative: no call).
     * Older kernels answer EINVAL: harmless.
     */
    static void futexHash(long threads) {
        if (VIRTUAL || !Boolean.getBoolean("ringbench.futexHash") || NATIVE == null) return;
        long slots = 16;
        while (slots < threads && slots < (1L << 22)) slots <<= 1;
        String env = System.getenv("RINGBENCH_FUTEX_HASH_SLOTS");
        if (env != null && !env.isBlank()) {
            try {
                slots = Long.parseLong(env.trim());
            } catch (NumberFormatException e) {
                throw badParam("RINGBENCH_FUTEX_HASH_SLOTS must be an integer, got '" + env + "'");
            }
        }
        if (slots >= 0) NATIVE.futexHashSlots(slots);
    }

    // --------------------------------------------------------------- workloads

    static void joinAll(Thread[] ts) throws InterruptedException {
        for (Thread t : ts) if (t != null) t.join();
    }

    /** Spawn the ring p0..p(n-1) with fresh mailboxes; returns the threads. */
    static Thread[] spawnRing(int n, Box[] boxes, Box main, Ready ready) {
        Thread[] threads = new Thread[n];
        for (int i = 0; i < n; i++) boxes[i] = newBox();
        for (int i = 0; i < n; i++) {
            Box next = boxes[i + 1 == n ? 0 : i + 1];
            Thread t = newProc(new RingProc(boxes[i], next, i + 1 == n ? main : next, main, ready));
            threads[i] = t;
            start(t, i, n);
        }
        return threads;
    }

    /** Where token j of `tokens` enters the ring: spread (p(j*n div tokens)) or burst (all at p0). */
    static int entry(int j, int n, int tokens, boolean burst) {
        return burst ? 0 : (int) ((long) j * n / tokens);
    }

    static Result ring(int n, long m, int tokens, boolean burst) throws InterruptedException {
        Result r = new Result();
        Box[] boxes = new Box[n];
        Ready ready = new Ready(n);
        final long value = (long) n * m;
        r.g0 = new GcSnap();
        Mem.readBefore();

        long c0 = cpu(), t0 = System.nanoTime();
        Box main = newSharedBox();
        Thread[] threads = spawnRing(n, boxes, main, ready);
        r.ready = ready.await();
        long t1 = System.nanoTime(), c1 = cpu();

        betweenPhases(r);

        long c2 = cpu(), t2 = System.nanoTime();
        for (int j = 0; j < tokens; j++) boxes[entry(j, n, tokens, burst)].put(value);
        for (int j = 0; j < tokens; j++) main.take();
        long t3 = System.nanoTime(), c3 = cpu();
        r.g3 = new GcSnap();

        boxes[0].put(-1);
        r.count = -main.take() - 1;
        joinAll(threads);
        r.setupNs = t1 - t0; r.setupCpu = c1 - c0;
        r.runNs = t3 - t2; r.runCpu = c3 - c2;
        return r;
    }

    static void ringContinuous(int n, int tokens, boolean burst, long sampleMs, long samples) {
        Box[] boxes = new Box[n];
        Ready ready = new Ready(n);
        AtomicLong laps = new AtomicLong();
        for (int i = 0; i < n; i++) boxes[i] = newBox();
        for (int i = 0; i < n; i++) {
            start(newProc(new LoopProc(boxes[i], boxes[i + 1 == n ? 0 : i + 1], i == 0 ? laps : null, ready)), i, n);
        }
        ready.await();
        System.gc(); // the one untimed collection between the spawn and the message phase
        long t0 = System.nanoTime();
        for (int j = 0; j < tokens; j++) boxes[entry(j, n, tokens, burst)].put(1);
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
        Ready ready = new Ready(n);
        long total = (long) n * m;
        r.g0 = new GcSnap();
        Mem.readBefore();
        long c0 = cpu(), t0 = System.nanoTime();
        Box main = newSharedBox();
        for (int i = 0; i < n; i++) boxes[i] = newBox();
        for (int i = 0; i < n; i++) {
            Box next = boxes[i + 1 == n ? 0 : i + 1];
            threads[i] = newProc(new TraceProc(i, n, total, print, boxes[i], next, i + 1 == n ? main : next, main, ready));
            start(threads[i], i, n);
        }
        r.ready = ready.await();
        long t1 = System.nanoTime(), c1 = cpu();
        betweenPhases(r);
        long c2 = cpu(), t2 = System.nanoTime();
        boxes[0].put(total << 7); // from = -1
        main.take();
        long t3 = System.nanoTime(), c3 = cpu();
        r.g3 = new GcSnap();
        boxes[0].put(-1);
        r.count = -main.take() - 1;
        joinAll(threads);
        r.setupNs = t1 - t0; r.setupCpu = c1 - c0;
        r.runNs = t3 - t2; r.runCpu = c3 - c2;
        return r;
    }

    /** spawn: each process's ready signal is a message to main, sent just before its one receive. */
    static Result spawn(int n) throws InterruptedException {
        Result r = new Result();
        Box[] boxes = new Box[n];
        Thread[] threads = new Thread[n];
        r.g0 = new GcSnap();
        Mem.readBefore();
        long c0 = cpu(), t0 = System.nanoTime();
        final Box main = newSharedBox();
        for (int i = 0; i < n; i++) {
            final Box in = boxes[i] = newBox();
            Thread t = threads[i] = newProc(() -> {
                in.bind();
                main.forward(in, 1);   // the cell was made by the spawner with the mailbox
                in.take();
            });
            start(t, i, n);
        }
        long ready = 0;
        for (int i = 0; i < n; i++) ready += main.take();
        long t1 = System.nanoTime(), c1 = cpu();
        betweenPhases(r);
        for (int i = 0; i < n; i++) boxes[i].put(0);
        joinAll(threads);
        r.count = ready;
        r.ready = ready;
        r.setupNs = t1 - t0; r.setupCpu = c1 - c0;
        return r;
    }

    static Result pingpong(long m) throws InterruptedException {
        Result r = new Result();
        r.g0 = new GcSnap();
        Mem.readBefore();
        Ready ready = new Ready(2);
        long c0 = cpu(), t0 = System.nanoTime();
        final Box main = newSharedBox(), a = newBox(), b = newBox();
        Thread ta = newProc(() -> {
            a.bind();
            ready.signal();
            a.take(); // start
            for (long i = 0; i < m; i++) {
                b.forward(a, 1);
                a.take();
            }
            main.forward(a, 0);
            b.put(-1);
        });
        Thread tb = newProc(() -> {
            b.bind();
            ready.signal();
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
        r.ready = ready.await();
        long t1 = System.nanoTime(), c1 = cpu();
        betweenPhases(r);
        long c2 = cpu(), t2 = System.nanoTime();
        a.put(1);
        main.take();
        long t3 = System.nanoTime(), c3 = cpu();
        r.g3 = new GcSnap();
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
        Ready ready = new Ready(n + 1);
        CountDownLatch go = new CountDownLatch(1);
        r.g0 = new GcSnap();
        Mem.readBefore();
        long c0 = cpu(), t0 = System.nanoTime();
        final Box main = newSharedBox(), rx = newSharedBox();
        threads[n] = newProc(() -> {
            rx.bind();
            ready.signal();
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
                ready.signal();
                try {
                    go.await(); // the start signal is this sender's first receive
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                for (long k = 0; k < m; k++) rx.put(1);
                rx.put(0); // this sender is done
            });
            start(threads[i], i + 1, n + 1);
        }
        r.ready = ready.await();
        long t1 = System.nanoTime(), c1 = cpu();
        betweenPhases(r);
        long c2 = cpu(), t2 = System.nanoTime();
        go.countDown();
        long got = -main.take() - 1;
        long t3 = System.nanoTime(), c3 = cpu();
        r.g3 = new GcSnap();
        joinAll(threads);
        r.count = got;
        r.setupNs = t1 - t0; r.setupCpu = c1 - c0;
        r.runNs = t3 - t2; r.runCpu = c3 - c2;
        return r;
    }

    // -------------------------------------------------------------- arguments

    /** A key and its bounds (contract section 6). */
    record Key(String name, long lo, long hi, long dflt, boolean required) {}

    static final long N_MAX = 100_000_000L, M_MAX = 1_000_000_000L;

    /** The workload's keys in echo order, then the common keys; null for an unknown workload. */
    static List<Key> keysFor(String workload) {
        List<Key> k = new ArrayList<>();
        switch (workload) {
            case "ring" -> {
                k.add(new Key("n", 1, N_MAX, 0, true));
                k.add(new Key("m", 1, M_MAX, 0, true)); // not required in continuous mode (parse)
                k.add(new Key("tokens", 1, N_MAX, 1, false));
                k.add(new Key("burst", 0, 1, 0, false));
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
        k.add(new Key("cores", 1, 1024, Runtime.getRuntime().availableProcessors(), false));
        k.add(new Key("sample_ms", 0, 86_400_000, 0, false));
        k.add(new Key("samples", 1, 1_000_000, 3, false));
        k.add(new Key("stats", 0, 1, 0, false));
        return k;
    }

    static final Set<String> COMMON = Set.of("repeats", "warmup", "cores", "sample_ms", "samples", "stats");

    static String range(Key k) {
        return k.hi() == 1 && k.lo() == 0 ? "0 or 1" : "an integer in " + k.lo() + ".." + k.hi();
    }

    /** ASCII decimal digits only: no sign, no space, not empty. */
    static boolean digits(String s) {
        if (s.isEmpty()) return false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') return false;
        }
        return true;
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
            long x;
            try {
                if (!digits(raw)) throw new NumberFormatException();
                x = Long.parseLong(raw);
            } catch (NumberFormatException e) {
                throw badParam(name + " must be " + range(k) + ", got '" + raw + "'");
            }
            if (x < k.lo() || x > k.hi()) throw badParam(name + " must be " + range(k) + ", got '" + raw + "'");
            v.put(name, x);
        }
        boolean continuous = v.getOrDefault("sample_ms", 0L) > 0;
        for (Key k : keys) {
            if (!v.containsKey(k.name())) {
                boolean optional = continuous && workload.equals("ring") && k.name().equals("m");
                if (k.required() && !optional) throw badParam("missing key '" + k.name() + "' for workload " + workload);
                if (!k.required()) v.put(k.name(), k.dflt());
            }
        }
        if (workload.equals("ring")) {
            long n = v.get("n"), t = v.get("tokens");
            if (t > n) throw badParam("tokens must be <= n (" + n + "), got '" + t + "'");
            if (v.containsKey("m") && !below62(n, v.get("m"), t)) {
                throw badParam("n*m*tokens must be < 2^62, got n=" + n + " m=" + v.get("m") + " tokens=" + t);
            }
        }
        if (workload.equals("fanin") && !below62(v.get("n"), v.get("m"), 1)) {
            throw badParam("n*m must be < 2^62, got n=" + v.get("n") + " m=" + v.get("m"));
        }
        if (continuous && !workload.equals("ring")) {
            throw new Fail("unsupported", 2, "continuous mode (sample_ms>0) is defined for the ring workload only");
        }
        return v;
    }

    static boolean below62(long a, long b, long c) {
        try {
            return Math.multiplyExact(Math.multiplyExact(a, b), c) < (1L << 62);
        } catch (ArithmeticException e) {
            return false;
        }
    }

    static final List<String> WORKLOADS = List.of("ring", "spawn", "pingpong", "fanin", "trace");

    static void describe() {
        new Rec("describe").n("contract", 2).s("name", Flavor.NAME).s("runtime", "Java")
                .s("version", Runtime.version().toString())
                .raw("workloads", "[\"ring\",\"spawn\",\"pingpong\",\"fanin\",\"trace\"]")
                .raw("features", "[\"tokens\",\"continuous\",\"stats\"]")
                .s("variant", VARIANT)
                .s("vm", System.getProperty("java.vm.name", "") + " " + System.getProperty("java.vm.version", ""))
                .s("gc", String.join(", ", GCS.stream().map(GarbageCollectorMXBean::getName).toList()))
                .s("jvm_args", String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()))
                .s("thread_kind", VIRTUAL ? "virtual" : "platform")
                .s("mailbox", MAILBOX)
                .s("cpu_clock", cpuClockName)
                .emit();
    }

    static void run(String workload, Map<String, Long> p) throws InterruptedException {
        long repeats = p.get("repeats"), warmup = p.get("warmup");
        boolean stats = p.get("stats") == 1;
        long procs = switch (workload) {
            case "ring", "spawn", "trace" -> p.get("n");
            case "fanin" -> p.get("n") + 1;
            default -> 2;
        };
        futexHash(procs + Thread.activeCount());
        if (workload.equals("ring") && p.get("sample_ms") > 0) {
            ringContinuous((int) (long) p.get("n"), (int) (long) p.get("tokens"), p.get("burst") == 1,
                    p.get("sample_ms"), p.get("samples"));
            return;
        }
        for (long it = 1 - warmup; it <= repeats; it++) {
            Result r;
            long expect;
            switch (workload) {
                case "ring" -> {
                    int n = (int) (long) p.get("n");
                    long m = p.get("m");
                    int t = (int) (long) p.get("tokens");
                    r = ring(n, m, t, p.get("burst") == 1);
                    expect = (long) n * m * t;
                }
                case "spawn" -> {
                    r = spawn((int) (long) p.get("n"));
                    expect = p.get("n");
                }
                case "pingpong" -> {
                    r = pingpong(p.get("m"));
                    expect = p.get("m");
                }
                case "fanin" -> {
                    r = fanin((int) (long) p.get("n"), p.get("m"));
                    expect = p.get("n") * p.get("m");
                }
                case "trace" -> {
                    int n = (int) (long) p.get("n");
                    int m = (int) (long) p.get("m");
                    r = trace(n, m, it >= 1);
                    expect = (long) n * m;
                }
                default -> throw new Fail("unknown_workload", 2, "unknown workload '" + workload + "'");
            }
            if (r.count != expect) {
                throw failure(workload + ": count " + r.count + " != expected " + expect);
            }
            if (it < 1) continue; // warm-up: run whole, not reported
            Rec rec = new Rec("result").s("workload", workload).n("iteration", it);
            for (Key k : keysFor(workload)) {
                if (!COMMON.contains(k.name())) rec.n(k.name(), p.get(k.name()));
            }
            rec.n("count", r.count).n("ready", r.ready)
                    .n("setup_ns", r.setupNs).n("run_ns", r.runNs)
                    .n("setup_cpu_ns", r.setupCpu).n("run_cpu_ns", r.runCpu)
                    .n("rss_before", Mem.rssBefore).n("rss_after", Mem.rssAfter)
                    .n("runtime_mem_before", Mem.heapBefore).n("runtime_mem_after", Mem.heapAfter);
            if (!VIRTUAL) rec.n("kernel_stack_before", Mem.ksBefore).n("kernel_stack_after", Mem.ksAfter);
            rec.emit();
            if (stats) emitStats(it, r);
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
