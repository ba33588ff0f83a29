package ringbench.driver;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The driver program (contract sections 2, 4 and 5): the {@code --variant=}
 * option, the verbs, the warm-up and measured iterations, the count check and
 * the records. A driver's {@code main} is one call:
 *
 * <pre>{@code
 * Driver.serve(args, description, (variant, params) -> new MyWorkloads(variant, params));
 * }</pre>
 */
public final class Driver {
    /** The contract version this library implements. */
    public static final int CONTRACT = 4;

    /** Builds the workloads for a run, once the variant and the parameters are known. */
    @FunctionalInterface
    public interface Prepare {
        Workloads prepare(String variant, Params p) throws Exception;
    }

    /** Serves the arguments of one {@code run} (the options, "run", the workload and its keys). */
    @FunctionalInterface
    interface Run {
        void run(String[] args) throws Exception;
    }

    /** The workloads prepared for the current batch line, released before its done record (main thread only). */
    private static final List<Workloads> OPEN = new ArrayList<>();

    private Driver() {}

    /** Run the verb in {@code args} and end the JVM with the contract's exit code. */
    public static void serve(String[] args, Description d, Prepare prepare) {
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> Out.die(fail(e)));
        try {
            if (!batch(args, d, a -> run(a, d, prepare))) run(args, d, prepare);
        } catch (Throwable e) {
            Out.die(fail(e));
        }
        Out.exit();
    }

    /** A run's workloads, once prepared: under batch they are released at the end of the line. */
    static void opened(Workloads w) { OPEN.add(w); }

    /**
     * The verb {@code batch} (contract section 2): when {@code args} name it, one {@code run} per line of
     * stdin (its arguments separated by TABs), each followed by its {@code done} record; returns false
     * for any other verb. A line that ends in an exit status of 0 or 2 lets the next line be read; 1 or 3
     * ends the JVM after its done record ({@link Out#die}); the end of input ends it with 0.
     */
    static boolean batch(String[] args, Description d, Run run) throws Exception {
        int at = 0;
        while (at < args.length && args[at].startsWith("--")) at++;
        if (at >= args.length || !args[at].equals("batch")) return false;
        for (int i = 0; i < at; i++) {
            if (!args[i].startsWith("--variant=") || !d.variants().contains(args[i].substring("--variant=".length()))) {
                return false; // run says what is wrong with the option
            }
        }
        if (args.length > at + 1) throw Fail.badParam("batch takes no arguments (one run's arguments per line of stdin)");
        String[] options = Arrays.copyOf(args, at + 1);
        options[at] = "run";
        Out.batch();
        InputStream in = System.in;
        for (String line; (line = readLine(in)) != null; ) {
            String[] fields = line.isEmpty() ? new String[0] : line.split("\t", -1);
            String[] lineArgs = Arrays.copyOf(options, options.length + fields.length);
            System.arraycopy(fields, 0, lineArgs, options.length, fields.length);
            int exit = 0;
            try {
                run.run(lineArgs);
            } catch (Throwable e) {
                Fail f = fail(e);
                if (f.code != 2) Out.die(f); // failure, limit: the error record, done, the end of the JVM
                Out.error(f);
                exit = f.code;
            }
            try {
                for (Workloads w : OPEN) w.release();
            } catch (Throwable e) {
                Out.die(fail(e));
            }
            OPEN.clear();
            Out.done(exit);
        }
        return true;
    }

    /** One line of {@code in} without its '\n', decoded as UTF-8; null at the end of input. */
    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream(128);
        for (int c; (c = in.read()) != '\n'; ) {
            if (c < 0) return b.size() == 0 ? null : b.toString(StandardCharsets.UTF_8);
            b.write(c);
        }
        return b.toString(StandardCharsets.UTF_8);
    }

    /** What an exception means for the run: its own kind, a limit for memory, else a failure. */
    static Fail fail(Throwable e) {
        if (e instanceof Fail f) return f;
        if (e instanceof OutOfMemoryError) {
            return Fail.limit("out of memory (" + e.getMessage() + "): the Java heap maximum is "
                    + (Runtime.getRuntime().maxMemory() >> 20) + " MiB; raise it (-Xmx, which ringbench sets through the "
                    + "manifest's [limits.heap] for a cell that needs more than the JVM's default) or use a smaller n");
        }
        if (e instanceof StackOverflowError) return Fail.limit("stack overflow in a process (" + e + ")");
        e.printStackTrace();
        return Fail.failure("uncaught " + e);
    }

    /** Serve one {@code run} (or {@code describe}) in {@code args}; the JVM's end is the caller's. */
    static void run(String[] args, Description d, Prepare prepare) throws Exception {
        String usage = "usage: [--variant=<name>] describe | run <workload> key=value ... | batch";
        String variant = d.variants().isEmpty() ? "" : d.variants().get(0);
        int at = 0;
        for (; at < args.length && args[at].startsWith("--"); at++) {
            String a = args[at];
            String v = a.startsWith("--variant=") ? a.substring("--variant=".length()) : null;
            if (v == null || !d.variants().contains(v)) {
                throw Fail.badParam("unknown option '" + a + "' (known: " + (d.variants().isEmpty() ? "none"
                        : "--variant=" + String.join("|", d.variants())) + ")");
            }
            variant = v;
        }
        if (at >= args.length) throw Fail.badParam(usage);
        String verb = args[at];
        if (verb.equals("describe")) {
            if (args.length > at + 1) throw Fail.badParam("describe takes no arguments");
            describe(d, variant);
            return;
        }
        if (!verb.equals("run")) throw Fail.badParam("unknown verb '" + verb + "' (" + usage + ")");
        if (args.length < at + 2) throw Fail.badParam("usage: run <workload> key=value ...");
        Workload w = Workload.named(args[at + 1]);
        if (w == null || !(d.workloads().contains(w.id) || w == Workload.SELECTIVE)) {
            throw Fail.unknownWorkload("unknown workload '" + args[at + 1] + "' (known: " + String.join(", ", d.workloads()) + ")");
        }
        Params p = Params.parse(w, args, at + 2);
        if (!d.workloads().contains(w.id)) throw Fail.unsupported(d.noSelective());
        Workloads workloads = prepare.prepare(variant, p);
        opened(workloads);
        Meter meter = new Meter(d.osThreads());
        if (p.continuous()) {
            sample(workloads.ringForever(p, meter), p, meter);
            return;
        }
        long expected = p.expected();
        for (long it = 1 - p.warmup(); it <= p.repeats(); it++) {
            meter.reset();
            long count = switch (w) {
                case RING -> workloads.ring(p, meter);
                case SPAWN -> workloads.spawn(p, meter);
                case PINGPONG -> workloads.pingpong(p, meter);
                case FANIN -> workloads.fanin(p, meter);
                case SELECTIVE -> workloads.selective(p, meter);
                case TREE -> workloads.tree(p, meter);
                case TRACE -> workloads.trace(p, meter, it >= 1);
            };
            if (count != expected) throw Fail.failure(w.id + ": count " + count + " != expected " + expected);
            if (it < 1) continue; // a warm-up: run whole, not reported
            Out.Rec r = new Out.Rec("result").s("workload", w.id).n("iteration", it);
            for (String k : w.keys) r.n(k, p.get(k));
            r.n("count", count);
            meter.result(r);
            r.emit();
            if (p.stats()) {
                Out.Rec s = new Out.Rec("stats").s("workload", w.id).n("iteration", it);
                meter.stats(s);
                workloads.stats(s);
                s.emit();
            }
        }
    }

    private static void describe(Description d, String variant) {
        new Out.Rec("describe").n("contract", CONTRACT).s("name", d.name()).s("runtime", d.runtime())
                .s("version", d.version()).list("workloads", d.workloads()).list("features", features(d))
                .s("variant", variant).s("clock", "System.nanoTime (CLOCK_MONOTONIC)").s("collector", Collector.name())
                .s("cpu_clock", Meter.cpuClock())
                .s("vm", System.getProperty("java.vm.name", "") + " " + System.getProperty("java.vm.version", ""))
                .s("jvm_args", String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()))
                .emit();
    }

    /** The driver's features and batch, which this library serves for every driver on it. */
    private static List<String> features(Description d) {
        List<String> f = new ArrayList<>(d.features());
        if (!f.contains("batch")) f.add("batch");
        return f;
    }

    /** Continuous mode: a sample every sample_ms, then the end without teardown. */
    private static void sample(LongSupplier hops, Params p, Meter meter) {
        long period = p.sampleMs() * 1_000_000L;
        for (long s = 1; s <= p.samples(); s++) {
            long due = s * period, now;
            while ((now = meter.sinceRunBegan()) < due) java.util.concurrent.locks.LockSupport.parkNanos(due - now);
            long count = hops.getAsLong();
            new Out.Rec("sample").n("seq", s).n("elapsed_ns", meter.sinceRunBegan()).n("count", count).emit();
        }
    }
}
