package ringbench.driver;

import java.util.concurrent.ThreadFactory;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import ringbench.threads.ThreadWorkloads;

/**
 * The context switches of contract 4 (setup_vcsw, setup_ivcsw, run_vcsw, run_ivcsw):
 * read from getrusage(RUSAGE_SELF), which keeps the counts of threads that have ended;
 * present in every result record of every box kind; over the message phase, about one
 * voluntary switch per hop for a ring of OS threads; zero over the spawn phase of a tree,
 * which is timed as one phase.
 *
 * <pre>java ringbench.driver.ContextSwitchTest platform|virtual</pre>
 */
final class ContextSwitchTest {
    private static final Pattern FIELD = Pattern.compile("\"(setup_vcsw|setup_ivcsw|run_vcsw|run_ivcsw)\":(-?\\d+)");

    private ContextSwitchTest() {}

    public static void main(String[] args) throws Exception {
        boolean platform = args[0].equals("platform");
        ThreadFactory threads = platform ? Thread.ofPlatform().daemon(true).factory() : Thread.ofVirtual().factory();

        check(Meter.contextSwitchSource().equals("getrusage(RUSAGE_SELF)"), "getrusage is callable: "
                + Meter.contextSwitchSource());
        endedThreadsCount();

        for (ThreadWorkloads.Boxes boxes : ThreadWorkloads.Boxes.values()) {
            ThreadWorkloads w = new ThreadWorkloads(threads, platform, boxes, "");
            long hops = 20 * 50;
            long[] ring = record(w, Workload.RING, "n=20", "m=50");
            System.out.printf("  %s ring n=20 m=50: setup %d/%d, run %d/%d (voluntary/involuntary)%n",
                    boxes, ring[0], ring[1], ring[2], ring[3]);
            // An OS thread waiting for its token blocks in the kernel: about one voluntary switch
            // per hop. Half is the floor a loaded machine still passes (a token can find its
            // receiver running now and then); a record without the counts fails here.
            if (platform) check(ring[2] >= hops / 2, boxes + ": run_vcsw " + ring[2] + " < hops/2 = " + hops / 2);
            long[] tree = record(w, Workload.TREE, "n=100");
            check(tree[0] == 0 && tree[1] == 0, boxes + ": tree is one phase, its setup switches are 0: "
                    + tree[0] + "/" + tree[1]);
            if (platform) check(tree[2] > 0, boxes + ": a tree of OS threads switches: run_vcsw " + tree[2]);
        }
        System.out.println("context switches: passed");
        System.exit(0);
    }

    /** getrusage keeps the switches of a thread that has ended; /proc/self/task forgets them. */
    private static void endedThreadsCount() throws InterruptedException {
        long[] a = new long[2], b = new long[2];
        Meter.contextSwitches(a);
        Thread t = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < 20; i++) {
                try {
                    Thread.sleep(1); // each sleep gives the CPU up: a voluntary switch
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
        });
        t.join();
        Meter.contextSwitches(b);
        check(b[0] - a[0] >= 20, "an ended thread's 20 sleeps are counted: " + (b[0] - a[0]));
        long[] live = new long[2];
        check(Proc.contextSwitches(live) && live[0] > 0, "/proc/self/task is readable (the fallback)");
    }

    /** One measured iteration through the Meter and the record Driver would print: the four counts. */
    private static long[] record(ThreadWorkloads w, Workload wl, String... keys) throws Exception {
        Params p = Params.parse(wl, keys, 0);
        Meter m = new Meter(false);
        m.reset();
        long count = wl == Workload.RING ? w.ring(p, m) : w.tree(p, m);
        check(count == p.expected(), wl.id + ": count " + count + " != " + p.expected());
        Out.Rec r = new Out.Rec("result");
        m.result(r);
        String json = r.toString();
        long[] out = {-1, -1, -1, -1};
        Matcher x = FIELD.matcher(json);
        while (x.find()) {
            int i = switch (x.group(1)) {
                case "setup_vcsw" -> 0;
                case "setup_ivcsw" -> 1;
                case "run_vcsw" -> 2;
                default -> 3;
            };
            out[i] = Long.parseLong(x.group(2));
        }
        for (long v : out) check(v >= 0, "every count present and not negative: " + json);
        return out;
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            System.out.println("FAIL: " + what);
            System.exit(1);
        }
    }
}
