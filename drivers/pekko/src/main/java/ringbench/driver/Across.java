package ringbench.driver;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The keys of a ring across nodes (contract section 10: {@code nodes}, {@code node_placement}) for a JVM
 * driver, over the family library's {@link Driver}, which knows nothing of them. A run of ring or trace
 * that gives either key, or a continuous run with {@code stats=1} (the cluster view), is served here:
 * the iterations, the count check and the records of {@link Driver}, with the keys echoed, the
 * cross-node hops proven and the view's {@code node} records after each sample. Everything else goes to
 * {@link Driver#serve} unchanged. In package ringbench.driver for the {@link Meter}'s package-private
 * iteration methods; it belongs in drivers/common/java once a second JVM driver has nodes.
 */
public final class Across {
    private Across() {}

    /** The workloads of a driver with nodes. */
    public interface Spread extends Workloads {
        /** The cross-node receipts of the last ring or trace iteration's proof. */
        long crossHops();

        /** Continuous mode with stats=1: print one {@code node} record per node after sample {@code seq}. */
        void views(long seq) throws Exception;

        /** After the last iteration, untimed: stop the nodes this driver started. */
        void close();
    }

    /** Builds the workloads of a run over {@code k} nodes. */
    @FunctionalInterface
    public interface Prepare {
        Spread prepare(String variant, Params p, int k, int placement) throws Exception;
    }

    /** Run the verb in {@code args} and end the JVM with the contract's exit code. */
    public static void serve(String[] args, Description d, Driver.Prepare local, Prepare across) {
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> Out.die(fail(e)));
        try {
            // batch (contract section 2): each line's run is this class's or Driver's, as a command line's.
            if (Driver.batch(args, d, a -> {
                if (!run(a, d, across)) Driver.run(a, d, local);
            }) || run(args, d, across)) {
                Out.exit();
                return;
            }
        } catch (Throwable e) {
            Out.die(fail(e));
        }
        Driver.serve(args, d, local);
    }

    private static Fail fail(Throwable e) {
        if (e instanceof Fail f) return f;
        if (e instanceof OutOfMemoryError) {
            return Fail.limit("out of memory (" + e.getMessage() + "): the Java heap maximum is "
                    + (Runtime.getRuntime().maxMemory() >> 20) + " MiB; raise it or use a smaller n");
        }
        e.printStackTrace();
        return Fail.failure("uncaught " + e);
    }

    /** Serve the run if it is one of this class's; false: it is {@link Driver}'s. */
    private static boolean run(String[] args, Description d, Prepare across) throws Exception {
        String variant = d.variants().isEmpty() ? "" : d.variants().get(0);
        int at = 0;
        for (; at < args.length && args[at].startsWith("--"); at++) {
            String v = args[at].startsWith("--variant=") ? args[at].substring("--variant=".length()) : null;
            if (v == null || !d.variants().contains(v)) return false; // Driver says what is wrong
            variant = v;
        }
        if (args.length < at + 2 || !args[at].equals("run")) return false;
        Workload w = Workload.named(args[at + 1]);
        if (w != Workload.RING && w != Workload.TRACE) return false;
        List<String> rest = new ArrayList<>(List.of(args).subList(0, at + 2));
        long k = -1, placement = -1;
        for (int i = at + 2; i < args.length; i++) {
            String a = args[i];
            if (a.startsWith("nodes=")) {
                if (k >= 0) throw Fail.badParam("key 'nodes' given twice");
                k = number("nodes", a.substring(6), 1, 256);
            } else if (a.startsWith("node_placement=")) {
                if (placement >= 0) throw Fail.badParam("key 'node_placement' given twice");
                placement = number("node_placement", a.substring(15), 0, 1);
            } else {
                rest.add(a);
            }
        }
        boolean given = k >= 0 || placement >= 0;
        Params p = Params.parse(w, rest.toArray(String[]::new), at + 2);
        if (!given && !(p.continuous() && p.stats())) return false;
        int nodes = (int) Math.max(k, 1), place = (int) Math.max(placement, 0);
        if (nodes > p.n()) throw Fail.badParam("nodes must be <= n (" + p.n() + "), got '" + nodes + "'");
        Spread s = across.prepare(variant, p, nodes, place);
        Driver.opened(s);
        Meter meter = new Meter(d.osThreads());
        if (p.continuous()) {
            LongSupplier hops = s.ringForever(p, meter);
            long period = p.sampleMs() * 1_000_000L;
            for (long seq = 1; seq <= p.samples(); seq++) {
                long due = seq * period, now;
                while ((now = meter.sinceRunBegan()) < due) java.util.concurrent.locks.LockSupport.parkNanos(due - now);
                long count = hops.getAsLong();
                new Out.Rec("sample").n("seq", seq).n("elapsed_ns", meter.sinceRunBegan()).n("count", count).emit();
                if (p.stats()) s.views(seq);
            }
            s.close();
            return true;
        }
        long expected = p.expected(), perLap = crossPerLap(p.n(), nodes, place);
        long expectedCross = perLap * p.m() * (w == Workload.RING ? p.tokens() : 1);
        for (long it = 1 - p.warmup(); it <= p.repeats(); it++) {
            meter.reset();
            long count = w == Workload.RING ? s.ring(p, meter) : s.trace(p, meter, it >= 1);
            if (count != expected) throw Fail.failure(w.id + ": count " + count + " != expected " + expected);
            long cross = s.crossHops();
            if (nodes > 1 && cross != expectedCross) {
                throw Fail.failure(w.id + ": cross_hops " + cross + " != expected " + expectedCross);
            }
            if (it < 1) continue;
            Out.Rec r = new Out.Rec("result").s("workload", w.id).n("iteration", it);
            for (String key : w.keys) r.n(key, p.get(key));
            r.n("nodes", nodes).n("node_placement", place).n("count", count);
            if (nodes > 1) r.n("cross_hops", cross);
            meter.result(r);
            r.emit();
            if (p.stats()) {
                Out.Rec st = new Out.Rec("stats").s("workload", w.id).n("iteration", it);
                meter.stats(st);
                s.stats(st);
                st.emit();
            }
        }
        s.close();
        return true;
    }

    /** The edges of a lap whose ends are on different nodes (section 10). */
    public static long crossPerLap(int n, int k, int placement) {
        long c = 0;
        for (int i = 0; i < n; i++) {
            int prev = i == 0 ? n - 1 : i - 1;
            if (node(i, n, k, placement) != node(prev, n, k, placement)) c++;
        }
        return c;
    }

    private static int node(int i, int n, int k, int placement) {
        return placement == 0 ? (int) ((long) i * k / n) : i % k;
    }

    private static long number(String key, String raw, long lo, long hi) {
        boolean digits = !raw.isEmpty() && raw.length() <= 18 && raw.chars().allMatch(c -> c >= '0' && c <= '9');
        long x = digits ? Long.parseLong(raw) : -1;
        if (x < lo || x > hi) {
            throw Fail.badParam(key + " must be " + (lo == 0 && hi == 1 ? "0 or 1" : "an integer in " + lo + ".." + hi)
                    + ", got '" + raw + "'");
        }
        return x;
    }
}
