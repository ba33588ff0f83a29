package ringbench.driver;

import java.lang.management.ManagementFactory;
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

    private Driver() {}

    /** Run the verb in {@code args} and end the JVM with the contract's exit code. */
    public static void serve(String[] args, Description d, Prepare prepare) {
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> Out.die(fail(e)));
        try {
            run(args, d, prepare);
        } catch (Throwable e) {
            Out.die(fail(e));
        }
        Out.exit();
    }

    /** What an exception means for the run: its own kind, a limit for memory, else a failure. */
    private static Fail fail(Throwable e) {
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

    private static void run(String[] args, Description d, Prepare prepare) throws Exception {
        String usage = "usage: [--variant=<name>] describe | run <workload> key=value ...";
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
                .s("version", d.version()).list("workloads", d.workloads()).list("features", d.features())
                .s("variant", variant).s("clock", "System.nanoTime (CLOCK_MONOTONIC)").s("collector", Collector.name())
                .s("cpu_clock", Meter.cpuClock())
                .s("vm", System.getProperty("java.vm.name", "") + " " + System.getProperty("java.vm.version", ""))
                .s("jvm_args", String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()))
                .emit();
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
