package ringbench.driver;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import ringbench.threads.ThreadWorkloads;

/**
 * The spawn boundary (contract section 3, issue 39) of ThreadWorkloads, every box kind, spawn and
 * ring, through the Meter and the record Driver prints:
 *
 * <ul>
 * <li>one process (the first or the last to start) that sleeps 200 ms before its body runs, so
 * before it arrives at the gate, makes setup_ns at least 200 ms, and ready is n;</li>
 * <li>while main is inside Meter.spawnEnds (it has woken from the gate and released no one: its
 * stack shows the frame before and after the look), every process thread is WAITING (parked in
 * its first receive), but the one whose arrival woke main, which may be RUNNABLE on its way to it;
 * no thread is NEW or TIMED_WAITING (still sleeping short of the gate).</li>
 * </ul>
 *
 * The seam is the ThreadFactory the drivers pass to ThreadWorkloads: the test's wraps each body.
 *
 * <pre>java ringbench.driver.SpawnBoundaryTest platform|virtual</pre>
 */
final class SpawnBoundaryTest {
    private static final long DELAY_NS = 200_000_000L;
    private static final Pattern SETUP = Pattern.compile("\"setup_ns\":(\\d+)");
    private static final Pattern READY = Pattern.compile("\"ready\":(\\d+)");

    private SpawnBoundaryTest() {}

    /** The driver's kind of thread; the thread at start ordinal {@code slow} sleeps first; every thread kept. */
    private static final class Factory implements ThreadFactory {
        final ThreadFactory kind;
        final int slow;
        final AtomicInteger made = new AtomicInteger();
        final List<Thread> threads = new CopyOnWriteArrayList<>();
        volatile boolean lateAwake;

        Factory(ThreadFactory kind, int slow) {
            this.kind = kind;
            this.slow = slow;
        }

        @Override
        public Thread newThread(Runnable body) {
            boolean late = made.getAndIncrement() == slow;
            Thread t = kind.newThread(() -> {
                if (late) {
                    sleep();
                    lateAwake = true;
                }
                body.run();
            });
            threads.add(t);
            return t;
        }
    }

    private static void sleep() {
        long end = System.nanoTime() + DELAY_NS;
        try {
            for (long left; (left = end - System.nanoTime()) > 0; ) Thread.sleep(left / 1_000_000 + 1);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** What the watcher saw while main was inside Meter.spawnEnds, or null if it never caught it there. */
    private record Look(int waiting, int runnable, String others) {}

    public static void main(String[] args) throws Exception {
        boolean platform = args[0].equals("platform");
        ThreadFactory kind = platform ? Thread.ofPlatform().daemon(true).factory() : Thread.ofVirtual().factory();
        int looks = 0, tries = 0;
        for (ThreadWorkloads.Boxes boxes : ThreadWorkloads.Boxes.values()) {
            for (Workload wl : new Workload[] {Workload.SPAWN, Workload.RING}) {
                for (int n : new int[] {1, 2, 100}) {
                    for (int slow : n == 1 ? new int[] {-1, 0} : new int[] {-1, 0, n - 1}) {
                        String what = args[0] + " " + boxes + " " + wl.id + " n=" + n
                                + (slow < 0 ? "" : ", p" + slow + " 200 ms late");
                        Factory f = new Factory(kind, slow);
                        ThreadWorkloads w = new ThreadWorkloads(f, platform, boxes, "");
                        Params p = Params.parse(wl, wl == Workload.RING ? new String[] {"n=" + n, "m=3"}
                                : new String[] {"n=" + n}, 0);
                        Look[] seen = new Look[1];
                        Thread main = Thread.currentThread();
                        Thread watcher = Thread.ofPlatform().daemon(true).start(() -> seen[0] = watch(main, f, n));
                        Meter m = new Meter(platform);
                        m.reset();
                        long count = wl == Workload.RING ? w.ring(p, m) : w.spawn(p, m);
                        watcher.interrupt();
                        watcher.join();
                        check(count == p.expected(), what + ": count " + count + " != " + p.expected());
                        Out.Rec r = new Out.Rec("result");
                        m.result(r);
                        String json = r.toString();
                        long setup = field(SETUP, json), ready = field(READY, json);
                        check(ready == n, what + ": ready " + ready + " != n: " + json);
                        if (slow >= 0) {
                            check(setup >= DELAY_NS, what + ": setup_ns " + setup + " < the delay " + DELAY_NS);
                        }
                        tries++;
                        Look l = seen[0];
                        if (l != null) {
                            looks++;
                            check(l.waiting >= n - 1 && l.waiting + l.runnable == n, what
                                    + ": as main woke from the gate " + l.waiting + " of " + n
                                    + " processes were parked in their first receive, " + l.runnable
                                    + " runnable; others: " + l.others);
                        }
                        System.out.printf("  %s: setup %.1f ms%s%n", what, setup / 1e6,
                                l == null ? "" : "; woke: " + l.waiting + " parked, " + l.runnable + " runnable");
                    }
                }
            }
        }
        // A look needs the watcher to see main inside spawnEnds twice (about half the runs here,
        // noisy on a loaded machine); it must succeed now and then, or the look tests nothing.
        check(looks * 8 >= tries, "main seen inside spawnEnds in only " + looks + " of " + tries + " runs");
        System.out.println("spawn boundary: passed (" + looks + " of " + tries + " runs looked at as main woke)");
        System.exit(0);
    }

    /**
     * Until interrupted or a look is taken: each time main's stack shows Meter.spawnEnds, the states
     * of the process threads, kept if main's stack still shows it after (main woke and released no
     * one between). A correct gate cannot wake main before every process is made and the late one
     * has slept; until then the watcher looks every 0.2 ms instead of spinning (a spinning watcher
     * took a core from the run it watched), so a gate that wakes main early is still seen.
     */
    private static Look watch(Thread main, Factory f, int n) {
        Look found = null;
        while (found == null && !Thread.currentThread().isInterrupted()) {
            if (!inSpawnEnds(main)) {
                if (f.threads.size() < n || f.slow >= 0 && !f.lateAwake) LockSupport.parkNanos(200_000);
                else Thread.onSpinWait();
                continue;
            }
            int waiting = 0, runnable = 0;
            StringBuilder others = new StringBuilder();
            List<Thread> ts = f.threads;
            for (Thread t : ts) {
                switch (t.getState()) {
                    case WAITING -> waiting++;
                    case RUNNABLE -> runnable++;
                    default -> others.append(t.getState()).append(' ');
                }
            }
            if (ts.size() != n) others.append(ts.size()).append(" threads made");
            if (inSpawnEnds(main)) found = new Look(waiting, runnable, others.toString());
        }
        return found;
    }

    private static boolean inSpawnEnds(Thread main) {
        for (StackTraceElement e : main.getStackTrace()) {
            if (e.getMethodName().equals("spawnEnds") && e.getClassName().equals(Meter.class.getName())) return true;
        }
        return false;
    }

    private static long field(Pattern p, String json) {
        Matcher x = p.matcher(json);
        check(x.find(), p.pattern() + " in " + json);
        return Long.parseLong(x.group(1));
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            System.out.println("FAIL: " + what);
            System.exit(1);
        }
    }
}
