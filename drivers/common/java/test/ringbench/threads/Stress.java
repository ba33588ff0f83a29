package ringbench.threads;

import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A randomized stress test of the hand-written primitives: ParkBox (the MPSC
 * mailbox, its cell reuse and its park/unpark hand-shake), SlotBox (the
 * hand-off slot with its two writers) and Gate, on platform or virtual threads.
 * Each round draws its sizes and its timing perturbations from a seeded random
 * source, checks every value that went in came out (in order per sender), and
 * must end within a deadline: a lost wake-up shows as a round that never ends.
 *
 * <pre>java ringbench.threads.Stress platform|virtual SECONDS [SEED]</pre>
 */
final class Stress {
    private static final long ROUND_DEADLINE_NS = 60_000_000_000L;
    private static ThreadFactory threads;
    private static volatile String current = "";
    private static volatile long roundStarted;

    private Stress() {}

    public static void main(String[] args) throws Exception {
        boolean virtual = args[0].equals("virtual");
        long seconds = Long.parseLong(args[1]);
        long seed = args.length > 2 ? Long.parseLong(args[2]) : System.nanoTime();
        threads = virtual ? Thread.ofVirtual().factory() : Thread.ofPlatform().daemon(true).factory();
        SplittableRandom rnd = new SplittableRandom(seed);
        System.out.println("stress: " + args[0] + " threads, " + seconds + " s, seed " + seed);
        Thread watchdog = Thread.ofPlatform().daemon(true).start(Stress::watch);
        watchdog.setName("watchdog");

        Map<String, long[]> done = new TreeMap<>(); // test -> {rounds, messages}
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        for (long round = 0; System.nanoTime() < end || round < 10; round++) {
            SplittableRandom r = rnd.split();
            int which = (int) (round % 5);
            roundStarted = System.nanoTime();
            long messages = switch (which) {
                case 0 -> mpsc(r);
                case 1 -> ring(r, false);
                case 2 -> ring(r, true);
                case 3 -> twoWriters(r);
                default -> gate(r);
            };
            String name = current.substring(0, current.indexOf(' '));
            long[] d = done.computeIfAbsent(name, k -> new long[2]);
            d[0]++;
            d[1] += messages;
        }
        roundStarted = 0;
        done.forEach((k, v) -> System.out.println("  " + k + ": " + v[0] + " rounds, " + v[1] + " messages"));
        System.out.println("stress: passed");
        System.exit(0);
    }

    /** Fails the test when a round outlives its deadline (a lost wake-up or a deadlock). */
    private static void watch() {
        for (;;) {
            LockSupport.parkNanos(1_000_000_000L);
            long s = roundStarted;
            if (s != 0 && System.nanoTime() - s > ROUND_DEADLINE_NS) {
                System.out.println("stress: FAILED: round stuck for 60 s: " + current);
                Thread.getAllStackTraces().forEach((t, st) -> {
                    System.out.println(t);
                    for (StackTraceElement e : st) System.out.println("    at " + e);
                });
                Runtime.getRuntime().halt(1);
            }
        }
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            System.out.println("stress: FAILED: " + what + " in " + current);
            Runtime.getRuntime().halt(1);
        }
    }

    /** Sometimes let another thread run, or sleep a little, so that the interleavings vary. */
    private static void jitter(SplittableRandom r, int oneIn) {
        int x = r.nextInt(oneIn);
        if (x == 0) Thread.yield();
        else if (x == 1) LockSupport.parkNanos(r.nextInt(20_000));
    }

    private static Thread start(Runnable body) {
        Thread t = threads.newThread(body);
        t.start();
        return t;
    }

    /**
     * ParkBox as a many-producer mailbox: P producers put K numbered messages each
     * (with put, or forward from a box of their own) while the owner takes; every
     * message arrives once and each producer's arrive in order.
     */
    private static long mpsc(SplittableRandom r) throws InterruptedException {
        int producers = 1 + r.nextInt(8), each = 1 + r.nextInt(20_000), jitter = 2 + r.nextInt(200);
        current = "mpsc producers=" + producers + " each=" + each;
        ParkBox box = new ParkBox();
        Thread[] ts = new Thread[producers];
        for (int p = 0; p < producers; p++) {
            final long id = p;
            final SplittableRandom pr = r.split();
            final boolean forward = pr.nextBoolean();
            ts[p] = start(() -> {
                ParkBox own = new ParkBox(); // forward's cells: its one free cell, then new ones
                for (long k = 0; k < each; k++) {
                    long v = id << 32 | k;
                    if (forward) box.forward(own, v);
                    else box.put(v);
                    jitter(pr, jitter);
                }
            });
        }
        long[] next = new long[producers];
        SplittableRandom cr = r.split();
        for (long i = 0, total = (long) producers * each; i < total; i++) {
            long v = box.take();
            int p = (int) (v >>> 32);
            check(p < producers && (v & 0xffffffffL) == next[p], "producer " + p + " sent " + (v & 0xffffffffL)
                    + " when " + (p < producers ? next[p] : -1) + " was due");
            next[p]++;
            jitter(cr, jitter);
        }
        for (Thread t : ts) t.join();
        return (long) producers * each;
    }

    /**
     * The ring exactly as the driver runs it (RingProc, Gate, main's mailbox): N
     * processes, T tokens spread or in a burst, M laps; with slots, the hand-off,
     * where tokens meet at full slots and writers park.
     */
    private static long ring(SplittableRandom r, boolean slots) throws InterruptedException {
        int n = 1 + r.nextInt(r.nextBoolean() ? 8 : 200), tokens = 1 + r.nextInt(n), m = 1 + r.nextInt(2000 / n + 1);
        boolean burst = r.nextBoolean();
        current = (slots ? "slot-ring" : "park-ring") + " n=" + n + " tokens=" + tokens + " m=" + m + " burst=" + burst;
        Box[] boxes = new Box[n];
        Thread[] ts = new Thread[n];
        Gate gate = new Gate(n);
        Box main = new ParkBox();
        for (int i = 0; i < n; i++) boxes[i] = slots ? new SlotBox() : new ParkBox();
        for (int i = 0; i < n; i++) {
            Box next = boxes[i + 1 == n ? 0 : i + 1];
            ts[i] = start(new ThreadWorkloads.RingProc(boxes[i], next, i + 1 == n ? main : next, main, gate));
        }
        check(gate.await() == n, "gate count");
        long value = (long) n * m;
        for (int j = 0; j < tokens; j++) boxes[burst ? 0 : (int) ((long) j * n / tokens)].put(value);
        for (int j = 0; j < tokens; j++) check(main.take() == 0, "a finished token reports 0");
        boxes[0].put(-1);
        long count = -main.take() - 1;
        for (Thread t : ts) t.join();
        check(count == value * tokens, "ring count " + count + " != " + value * tokens);
        return count;
    }

    /**
     * SlotBox with both its writers at once: a predecessor (forward) and the main
     * side (put) each write K numbered values while the owner takes them; slots
     * are full most of the time, so writers announce themselves and park.
     */
    private static long twoWriters(SplittableRandom r) throws InterruptedException {
        int each = 1 + r.nextInt(20_000), jitter = 2 + r.nextInt(100);
        current = "slot-writers each=" + each;
        SlotBox slot = new SlotBox();
        AtomicLong bound = new AtomicLong();
        SplittableRandom or = r.split();
        long[] got = new long[2];
        Thread owner = start(() -> {
            slot.bind();
            bound.set(1);
            for (long i = 0; i < 2L * each; i++) {
                long v = slot.take();
                int w = (int) (v >>> 32);
                check(w < 2 && (v & 0xffffffffL) == got[w], "writer " + w + " wrote " + (v & 0xffffffffL)
                        + " when " + (w < 2 ? got[w] : -1) + " was due");
                got[w]++;
                jitter(or, jitter);
            }
        });
        if (r.nextBoolean()) {
            while (bound.get() == 0) Thread.onSpinWait(); // else the writers may come before bind
        }
        Thread[] ws = new Thread[2];
        for (int w = 0; w < 2; w++) {
            final long id = w;
            final SplittableRandom wr = r.split();
            ws[w] = start(() -> {
                for (long k = 0; k < each; k++) {
                    if (id == 0) slot.forward(null, id << 32 | k);
                    else slot.put(id << 32 | k);
                    jitter(wr, jitter);
                }
            });
        }
        for (Thread t : ws) t.join();
        owner.join();
        check(got[0] == each && got[1] == each, "both writers' values taken");
        return 2L * each;
    }

    /** Gate: K processes arrive at once; await returns only when it has seen all K. */
    private static long gate(SplittableRandom r) throws InterruptedException {
        int k = 1 + r.nextInt(500);
        current = "gate k=" + k;
        Gate gate = new Gate(k);
        AtomicLong arrived = new AtomicLong();
        Thread[] ts = new Thread[k];
        for (int i = 0; i < k; i++) {
            final SplittableRandom pr = r.split();
            ts[i] = start(() -> {
                jitter(pr, 3);
                arrived.incrementAndGet();
                gate.arrive();
            });
        }
        long seen = gate.await();
        check(seen == k && arrived.get() == k, "await returned after " + seen + " of " + k + " arrivals");
        for (Thread t : ts) t.join();
        return k;
    }
}
