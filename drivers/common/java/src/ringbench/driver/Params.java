package ringbench.driver;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One run's parameters, parsed and checked against the contract's bounds
 * (sections 2 and 6). Keys a workload does not define hold their defaults.
 *
 * @param workload   the workload
 * @param n          processes (ring, spawn, trace), senders (fanin), workers (selective), leaves (tree)
 * @param m          laps (ring, trace), round trips (pingpong), messages per sender (fanin), rounds (selective);
 *                   0 when left out in continuous mode
 * @param tokens     ring tokens, 1 … n
 * @param burst      ring: every token enters at p0 (else spread)
 * @param reverse    selective: collect replies in reverse order
 * @param fanout     tree: children of an inner node, 2 … 1,000
 * @param repeats    measured iterations
 * @param warmup     unprinted iterations first
 * @param cores      scheduler threads the runtime should use
 * @param sampleMs   continuous mode's sampling period (0: off)
 * @param samples    continuous mode's sample count
 * @param stats      print a stats record after each result
 */
public record Params(Workload workload, int n, long m, int tokens, boolean burst, boolean reverse, int fanout,
        long repeats, long warmup, int cores, long sampleMs, long samples, boolean stats) {

    /** A key's bounds, inclusive, and its default. */
    private record Key(long lo, long hi, long dflt) {}

    private static final long REQUIRED = -1;
    private static final long N_MAX = 100_000_000L, M_MAX = 1_000_000_000L;
    private static final Map<String, Key> KEYS = new LinkedHashMap<>();
    private static final Map<String, Key> COMMON = new LinkedHashMap<>();

    static {
        KEYS.put("n", new Key(1, N_MAX, REQUIRED));
        KEYS.put("m", new Key(1, M_MAX, REQUIRED));
        KEYS.put("tokens", new Key(1, N_MAX, 1));
        KEYS.put("burst", new Key(0, 1, 0));
        KEYS.put("reverse", new Key(0, 1, 0));
        KEYS.put("fanout", new Key(2, 1000, 10));
        COMMON.put("repeats", new Key(1, 1_000_000, 1));
        COMMON.put("warmup", new Key(0, 1_000_000, 0));
        COMMON.put("cores", new Key(1, 1024, Runtime.getRuntime().availableProcessors()));
        COMMON.put("sample_ms", new Key(0, 86_400_000, 0));
        COMMON.put("samples", new Key(1, 1_000_000, 3));
        COMMON.put("stats", new Key(0, 1, 0));
    }

    /** Continuous mode (section 5): the ring runs until its samples are taken. */
    public boolean continuous() { return sampleMs > 0; }

    /** The value of a workload key by name, for the echo. */
    public long get(String key) {
        return switch (key) {
            case "n" -> n;
            case "m" -> m;
            case "tokens" -> tokens;
            case "burst" -> burst ? 1 : 0;
            case "reverse" -> reverse ? 1 : 0;
            case "fanout" -> fanout;
            default -> throw new IllegalArgumentException(key);
        };
    }

    /** The count a correct run proves (section 3). */
    public long expected() {
        return switch (workload) {
            case RING -> (long) n * m * tokens;
            case SPAWN -> n;
            case PINGPONG -> m;
            case FANIN, SELECTIVE, TRACE -> n * m;
            case TREE -> (long) n * (n - 1) / 2;
        };
    }

    /** The processes one iteration has alive at most (tree: every node, the bound the runtime may reach). */
    public long processes() {
        return switch (workload) {
            case RING, SPAWN, TRACE, SELECTIVE -> n;
            case PINGPONG -> 2;
            case FANIN -> n + 1L;
            case TREE -> ((long) fanout * n - 1) / (fanout - 1);
        };
    }

    /** Where token j enters the ring: p(j·n div tokens), or p0 for every token with burst. */
    public int entry(int j) { return burst ? 0 : (int) ((long) j * n / tokens); }

    /** Parse {@code key=value} arguments {@code args[from..]} for workload {@code w}. */
    public static Params parse(Workload w, String[] args, int from) {
        Map<String, Long> v = new HashMap<>();
        for (int i = from; i < args.length; i++) {
            String a = args[i];
            int eq = a.indexOf('=');
            if (eq <= 0) throw Fail.badParam("expected key=value, got '" + a + "'");
            String name = a.substring(0, eq), raw = a.substring(eq + 1);
            Key k = w.keys.contains(name) ? KEYS.get(name) : COMMON.get(name);
            if (k == null) {
                throw Fail.badParam("unknown key '" + name + "' for workload " + w.id + " (known: "
                        + String.join(", ", w.keys) + ", " + String.join(", ", COMMON.keySet()) + ")");
            }
            if (v.containsKey(name)) throw Fail.badParam("key '" + name + "' given twice");
            long hi = w == Workload.TRACE && (name.equals("n") || name.equals("m")) ? 100 : k.hi();
            long x = digits(raw) ? Long.parseLong(raw) : -1;
            if (x < k.lo() || x > hi) throw Fail.badParam(name + " must be " + range(k.lo(), hi) + ", got '" + raw + "'");
            v.put(name, x);
        }
        boolean continuous = v.getOrDefault("sample_ms", 0L) > 0;
        if (continuous && w != Workload.RING) {
            throw Fail.unsupported("continuous mode (sample_ms > 0) is defined for the ring workload only");
        }
        for (String name : w.keys) {
            if (v.containsKey(name)) continue;
            long d = KEYS.get(name).dflt();
            if (d == REQUIRED && !(continuous && name.equals("m"))) {
                throw Fail.badParam("missing key '" + name + "' for workload " + w.id);
            }
            v.put(name, Math.max(d, 0));
        }
        COMMON.forEach((name, k) -> v.putIfAbsent(name, k.dflt()));
        long n = v.get("n") == null ? 0 : v.get("n"), m = v.get("m") == null ? 0 : v.get("m");
        long tokens = v.getOrDefault("tokens", 1L), fanout = v.getOrDefault("fanout", 10L);
        if (tokens > n && w == Workload.RING) throw Fail.badParam("tokens must be <= n (" + n + "), got '" + tokens + "'");
        if (w == Workload.RING && !continuous && !below62(n, m, tokens)) {
            throw Fail.badParam("n*m*tokens must be < 2^62, got n=" + n + " m=" + m + " tokens=" + tokens);
        }
        if ((w == Workload.FANIN || w == Workload.SELECTIVE) && !below62(n, m, 1)) {
            throw Fail.badParam("n*m must be < 2^62, got n=" + n + " m=" + m);
        }
        if (w == Workload.TREE && !powerOf(n, fanout)) {
            throw Fail.badParam("tree's n must be a power of fanout (" + fanout + "^k), got n=" + n);
        }
        return new Params(w, (int) n, m, (int) tokens, v.getOrDefault("burst", 0L) == 1,
                v.getOrDefault("reverse", 0L) == 1, (int) fanout, v.get("repeats"), v.get("warmup"),
                (int) (long) v.get("cores"), v.get("sample_ms"), v.get("samples"), v.get("stats") == 1);
    }

    /** ASCII decimal digits only (no sign, no blank, not empty), short enough for a long. */
    private static boolean digits(String s) {
        if (s.isEmpty() || s.length() > 18) return false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') return false;
        }
        return true;
    }

    private static String range(long lo, long hi) {
        return lo == 0 && hi == 1 ? "0 or 1" : "an integer in " + lo + ".." + hi;
    }

    private static boolean below62(long a, long b, long c) {
        try {
            return Math.multiplyExact(Math.multiplyExact(a, b), c) < (1L << 62);
        } catch (ArithmeticException e) {
            return false;
        }
    }

    private static boolean powerOf(long n, long base) {
        while (n % base == 0) n /= base;
        return n == 1;
    }
}
