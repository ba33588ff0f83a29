package ringbench.threads;

import java.util.ArrayDeque;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import ringbench.driver.Fail;
import ringbench.driver.Meter;
import ringbench.driver.Out;
import ringbench.driver.Params;
import ringbench.driver.Workloads;

/**
 * The workloads with one {@link Thread} per process, for any kind of thread:
 * java-threads gives a factory of platform threads, java-virtual one of virtual
 * threads. What a process receives on is chosen by {@link Boxes}: the JDK's
 * {@code LinkedBlockingQueue} ({@link QueueBox}, stock), the hand-written
 * {@link ParkBox} mailbox, or the hand-written {@link SlotBox} hand-off slot.
 */
public final class ThreadWorkloads implements Workloads {
    /** Why {@code selective} is unsupported in the Java drivers. */
    public static final String NO_SELECTIVE = "Java has no selective receive: a BlockingQueue or mailbox can only "
            + "take its head, so a receive that skips non-matching messages would be an emulation, not the runtime's own";

    /** What the processes receive on. */
    public enum Boxes {
        /** The JDK's LinkedBlockingQueue everywhere: take() to wait, put() to send (the stock idiom). */
        QUEUE,
        /** The hand-written ParkBox mailbox everywhere (no allocation per hop). */
        PARKBOX,
        /**
         * The hand-written SlotBox for a process's own box (the Benchmarks Game hand-off);
         * boxes with many writers (main's, fanin's receiver, a tree node's) stay ParkBox mailboxes.
         */
        HANDOFF
    }

    /**
     * The boxes of a variant of java-threads and java-virtual: {@code parkbox} and
     * {@code handoff} their hand-written primitives, every other variant ({@code stock},
     * and {@code tuned}, which is stock with settings) the JDK's queue.
     */
    public static Boxes boxesOf(String variant) {
        return switch (variant) {
            case "parkbox" -> Boxes.PARKBOX;
            case "handoff" -> Boxes.HANDOFF;
            default -> Boxes.QUEUE;
        };
    }

    private final ThreadFactory threads;
    private final boolean osThreads;
    private final Boxes boxes;
    private final String limitAdvice;

    /**
     * @param threads     makes one unstarted thread per process (daemon threads)
     * @param osThreads   each thread is an OS thread (tree joins them all, untimed, after its phase)
     * @param boxes       what the processes receive on
     * @param limitAdvice how to raise the limit a failed thread start hit (for the limit error)
     */
    public ThreadWorkloads(ThreadFactory threads, boolean osThreads, Boxes boxes, String limitAdvice) {
        this.threads = threads;
        this.osThreads = osThreads;
        this.boxes = boxes;
        this.limitAdvice = limitAdvice;
    }

    /** A process's own box: written by at most its predecessor (or peer) and the main thread. */
    Box newBox() {
        return switch (boxes) {
            case QUEUE -> new QueueBox();
            case PARKBOX -> new ParkBox();
            case HANDOFF -> new SlotBox();
        };
    }

    /** A box with many writers: the variant's mailbox (a SlotBox has room for two writers only). */
    Box newSharedBox() { return boxes == Boxes.QUEUE ? new QueueBox() : new ParkBox(); }

    /** Start a process; a failure to create its thread ends the run with a `limit` error. */
    void start(Thread t, long started, long wanted) {
        try {
            t.start();
        } catch (OutOfMemoryError e) {
            // The VM ends, taking the started threads with it.
            Out.die(Fail.limit("could not start " + (started < 0 ? "a process" : "process " + (started + 1))
                    + " of " + wanted + ": " + e.getMessage() + "; " + limitAdvice));
        }
    }

    Thread spawn(Runnable body, long started, long wanted) {
        Thread t = threads.newThread(body);
        start(t, started, wanted);
        return t;
    }

    static void joinAll(Thread[] ts) throws InterruptedException {
        for (Thread t : ts) if (t != null) t.join();
    }

    // ------------------------------------------------------------------ ring

    /** A ring process. A token is a value v >= 1; the stop message is -(sum+1); main hears 0 per finished token. */
    static final class RingProc implements Runnable {
        final Box in, next, stopTo, main;
        final Gate gate;

        RingProc(Box in, Box next, Box stopTo, Box main, Gate gate) {
            this.in = in;
            this.next = next;
            this.stopTo = stopTo;
            this.main = main;
            this.gate = gate;
        }

        @Override
        public void run() {
            final Box in = this.in, next = this.next, main = this.main;
            in.bind();
            gate.arrive();
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

    @Override
    public long ring(Params p, Meter meter) throws InterruptedException {
        final int n = p.n(), tokens = p.tokens();
        final long value = (long) n * p.m();
        Box[] boxes = new Box[n];
        Gate gate = new Gate(n);

        meter.spawnBegins();
        Box main = newSharedBox();
        Thread[] procs = new Thread[n];
        for (int i = 0; i < n; i++) boxes[i] = newBox();
        for (int i = 0; i < n; i++) {
            Box next = boxes[i + 1 == n ? 0 : i + 1];
            procs[i] = spawn(new RingProc(boxes[i], next, i + 1 == n ? main : next, main, gate), i, n);
        }
        meter.spawnEnds(gate.await());

        meter.runBegins();
        for (int j = 0; j < tokens; j++) boxes[p.entry(j)].put(value);
        for (int j = 0; j < tokens; j++) main.take();
        meter.runEnds();

        boxes[0].put(-1);
        long count = -main.take() - 1;
        joinAll(procs);
        return count;
    }

    /**
     * A ring process of continuous mode: tokens never finish; p0 counts laps. Under batch, release()
     * ends it: p0 through its laps counter, the others when they next wait (Box.Ended).
     */
    static final class LoopProc implements Runnable {
        final Box in, next;
        final AtomicLong laps; // only p0's is non-null
        final Gate gate;

        LoopProc(Box in, Box next, AtomicLong laps, Gate gate) {
            this.in = in;
            this.next = next;
            this.laps = laps;
            this.gate = gate;
        }

        @Override
        public void run() {
            final Box in = this.in, next = this.next;
            final AtomicLong laps = this.laps;
            in.bind();
            gate.arrive();
            try {
                for (;;) {
                    long v = in.take();
                    if (laps != null && laps.getAndIncrement() < 0) return; // p0: release asked
                    next.forward(in, v);
                }
            } catch (Box.Ended e) {
                // release() interrupted this thread while it waited: the ring is over
            }
        }
    }

    /** Continuous mode: the ring's laps counter and its processes, until {@link #release}. */
    private AtomicLong foreverLaps;
    private Thread[] forever;

    /**
     * batch, after a continuous line, with nothing added to a hop: p0 is told through its laps
     * counter, which it reads anyway, and ends; every thread is interrupted, which a box looks at
     * only when its owner waits (Box.Ended). Once p0 has ended no token passes it, so each other
     * process runs out of tokens, or fills p0's slot, and waits, and ends; a thread that finds its
     * message at once (n = 1, or every box full) is not stuck, since p0 stops the flow. Main writes
     * to no box (a hand-off slot has room for its predecessor and main only). This waits for every
     * process.
     */
    @Override
    public void release() throws InterruptedException {
        if (forever == null) return;
        foreverLaps.set(Long.MIN_VALUE / 2);
        for (Thread t : forever) t.interrupt();
        joinAll(forever);
        forever = null;
        foreverLaps = null;
    }

    @Override
    public LongSupplier ringForever(Params p, Meter meter) {
        final int n = p.n();
        Box[] boxes = new Box[n];
        Gate gate = new Gate(n);
        AtomicLong laps = new AtomicLong();
        Thread[] ts = new Thread[n];
        meter.spawnBegins();
        for (int i = 0; i < n; i++) boxes[i] = newBox();
        for (int i = 0; i < n; i++) {
            ts[i] = spawn(new LoopProc(boxes[i], boxes[i + 1 == n ? 0 : i + 1], i == 0 ? laps : null, gate), i, n);
        }
        meter.spawnEnds(gate.await());
        forever = ts;
        foreverLaps = laps;
        meter.runBegins();
        for (int j = 0; j < p.tokens(); j++) boxes[p.entry(j)].put(1);
        return () -> laps.get() * n;
    }

    // ----------------------------------------------------------------- trace

    /** A trace process. A token is (v << 7) | (from + 1); each receipt prints a hop record as it happens. */
    static final class TraceProc implements Runnable {
        final int idx, n;
        final long total;
        final boolean print;
        final Box in, next, stopTo, main;
        final Gate gate;

        TraceProc(int idx, int n, long total, boolean print, Box in, Box next, Box stopTo, Box main, Gate gate) {
            this.idx = idx;
            this.n = n;
            this.total = total;
            this.print = print;
            this.in = in;
            this.next = next;
            this.stopTo = stopTo;
            this.main = main;
            this.gate = gate;
        }

        @Override
        public void run() {
            in.bind();
            gate.arrive();
            long count = 0;
            for (;;) {
                long x = in.take();
                if (x >= 0) {
                    long v = x >>> 7;
                    long from = (x & 127) - 1;
                    long hop = total - v + 1;
                    count++;
                    if (print) Out.hop(hop, (hop - 1) / n + 1, from, idx);
                    if (v == 1) main.forward(in, 0);
                    else next.forward(in, ((v - 1) << 7) | (idx + 1));
                } else {
                    stopTo.forward(in, x - count);
                    return;
                }
            }
        }
    }

    @Override
    public long trace(Params p, Meter meter, boolean print) throws InterruptedException {
        final int n = p.n();
        final long total = (long) n * p.m();
        Box[] boxes = new Box[n];
        Thread[] procs = new Thread[n];
        Gate gate = new Gate(n);
        meter.spawnBegins();
        Box main = newSharedBox();
        for (int i = 0; i < n; i++) boxes[i] = newBox();
        for (int i = 0; i < n; i++) {
            Box next = boxes[i + 1 == n ? 0 : i + 1];
            procs[i] = spawn(new TraceProc(i, n, total, print, boxes[i], next, i + 1 == n ? main : next, main, gate), i, n);
        }
        meter.spawnEnds(gate.await());
        meter.runBegins();
        boxes[0].put(total << 7); // from = -1
        main.take();
        meter.runEnds();
        boxes[0].put(-1);
        long count = -main.take() - 1;
        joinAll(procs);
        return count;
    }

    // ----------------------------------------------------------------- spawn

    /** spawn: each process arrives at the gate just before its one receive, as a ring process does. */
    @Override
    public long spawn(Params p, Meter meter) throws InterruptedException {
        final int n = p.n();
        Box[] boxes = new Box[n];
        Thread[] procs = new Thread[n];
        Gate gate = new Gate(n);
        meter.spawnBegins();
        for (int i = 0; i < n; i++) {
            final Box in = boxes[i] = newBox();
            procs[i] = spawn(() -> {
                in.bind();
                gate.arrive();
                in.take();
            }, i, n);
        }
        long ready = gate.await();
        meter.spawnEnds(ready);
        for (int i = 0; i < n; i++) boxes[i].put(0);
        joinAll(procs);
        return ready;
    }

    // -------------------------------------------------------------- pingpong

    @Override
    public long pingpong(Params p, Meter meter) throws InterruptedException {
        final long m = p.m();
        Gate gate = new Gate(2);
        meter.spawnBegins();
        final Box main = newSharedBox(), a = newBox(), b = newBox();
        Thread ta = spawn(() -> {
            a.bind();
            gate.arrive();
            a.take(); // start
            for (long i = 0; i < m; i++) {
                b.forward(a, 1);
                a.take();
            }
            main.forward(a, 0);
            b.put(-1);
        }, 0, 2);
        Thread tb = spawn(() -> {
            b.bind();
            gate.arrive();
            long c = 0;
            for (;;) {
                long v = b.take();
                if (v < 0) break;
                c++;
                a.forward(b, 1);
            }
            main.forward(b, -(c + 1));
        }, 1, 2);
        meter.spawnEnds(gate.await());
        meter.runBegins();
        a.put(1);
        main.take();
        meter.runEnds();
        long count = -main.take() - 1;
        ta.join();
        tb.join();
        return count;
    }

    // ----------------------------------------------------------------- fanin

    @Override
    public long fanin(Params p, Meter meter) throws InterruptedException {
        final int n = p.n();
        final long m = p.m();
        Thread[] procs = new Thread[n + 1];
        Gate gate = new Gate(n + 1L);
        CountDownLatch go = new CountDownLatch(1);
        meter.spawnBegins();
        final Box main = newSharedBox(), rx = newSharedBox();
        procs[n] = spawn(() -> {
            rx.bind();
            gate.arrive();
            long got = 0, done = 0;
            while (done < n) {
                if (rx.take() > 0) got++;
                else done++;
            }
            main.forward(rx, -(got + 1));
        }, 0, n + 1L);
        for (int i = 0; i < n; i++) {
            procs[i] = spawn(() -> {
                gate.arrive();
                try {
                    go.await(); // the start signal is this sender's first receive
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                for (long k = 0; k < m; k++) rx.put(1);
                rx.put(0); // this sender is done
            }, i + 1L, n + 1L);
        }
        meter.spawnEnds(gate.await());
        meter.runBegins();
        go.countDown();
        long got = -main.take() - 1;
        meter.runEnds();
        joinAll(procs);
        return got;
    }

    // ------------------------------------------------------------------ tree

    /**
     * A tree process covering the leaves lo … lo+size-1. A leaf sends its
     * ordinal to its parent and ends; an inner node makes its mailbox, spawns
     * fanout children over equal contiguous parts of its range, receives one sum
     * from each (in whatever order they come), sends the total and ends. With
     * OS threads, a node keeps its children and each child its own thread, so
     * that main can join the whole tree after the phase.
     */
    final class TreeProc implements Runnable {
        final int lo, size, fanout;
        final long wanted;
        final Box parent;
        /** This process's thread, set by its parent (OS threads only; read by main after joining the parent). */
        Thread thread;
        /** The children (OS threads only; null for a leaf). */
        TreeProc[] kids;

        TreeProc(int lo, int size, int fanout, long wanted, Box parent) {
            this.lo = lo;
            this.size = size;
            this.fanout = fanout;
            this.wanted = wanted;
            this.parent = parent;
        }

        @Override
        public void run() {
            if (size == 1) {
                parent.put(lo);
                return;
            }
            Box own = newSharedBox();
            int part = size / fanout;
            if (osThreads) {
                TreeProc[] ks = new TreeProc[fanout];
                for (int i = 0; i < fanout; i++) {
                    TreeProc k = new TreeProc(lo + i * part, part, fanout, wanted, own);
                    ks[i] = k;
                    k.thread = spawn(k, -1, wanted);
                }
                kids = ks;
            } else {
                for (int i = 0; i < fanout; i++) spawn(new TreeProc(lo + i * part, part, fanout, wanted, own), -1, wanted);
            }
            long sum = 0;
            for (int i = 0; i < fanout; i++) sum += own.take();
            parent.put(sum);
        }
    }

    @Override
    public long tree(Params p, Meter meter) throws InterruptedException {
        Box main = newSharedBox();
        TreeProc root = new TreeProc(0, p.n(), p.fanout(), p.processes(), main);
        meter.treeBegins();
        root.thread = spawn(root, 0, p.processes());
        long sum = main.take();
        meter.treeEnds();
        if (osThreads) joinTree(root);
        return sum;
    }

    /**
     * Untimed, after a tree of OS threads: join every thread of the tree (each ends
     * right after its message, so some are still running when the root's sum arrives),
     * so that the next iteration starts from the same state. A node's children are
     * read after joining it: the join makes its writes of them visible.
     */
    private static void joinTree(TreeProc root) throws InterruptedException {
        ArrayDeque<TreeProc> todo = new ArrayDeque<>();
        todo.push(root);
        while (!todo.isEmpty()) {
            TreeProc t = todo.pop();
            t.thread.join();
            if (t.kids != null) for (TreeProc k : t.kids) todo.push(k);
        }
    }
}
