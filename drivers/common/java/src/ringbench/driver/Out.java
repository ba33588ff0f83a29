package ringbench.driver;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * stdout as JSON Lines (contract section 4): one record per line, flushed as
 * it is written, from any thread. Nothing else writes to stdout.
 */
public final class Out {
    private static final PrintStream OUT = new PrintStream(
            new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16), false, StandardCharsets.UTF_8);
    private static final Object LOCK = new Object();
    private static boolean dying;
    /** Serving {@code batch}: an ending error record is followed by its {@code done} record. */
    private static volatile boolean batch;

    private Out() {}

    /** Write one complete JSON object as a line and flush it. */
    public static void line(String json) {
        synchronized (LOCK) {
            if (dying) return;
            OUT.print(json);
            OUT.print('\n');
            OUT.flush();
        }
    }

    /** A trace record, printed by the receiving process as the hop happens. */
    public static void hop(long hop, long lap, long from, long to) {
        line("{\"type\":\"hop\",\"hop\":" + hop + ",\"lap\":" + lap + ",\"from\":" + from + ",\"to\":" + to + "}");
    }

    /** The error record of {@code f}. */
    private static String errorRecord(Fail f) {
        return "{\"type\":\"error\",\"kind\":" + str(f.kind) + ",\"message\":" + str(f.getMessage()) + "}";
    }

    /** From now on, {@link #die} ends with a {@code done} record too (the verb {@code batch}). */
    static void batch() { batch = true; }

    /** Under batch: the error record of a line that continues (exit status 2), without ending the JVM. */
    static void error(Fail f) { line(errorRecord(f)); }

    /** Under batch: the last record of a line, with the exit status {@code run} would have ended with. */
    static void done(int exit) { line("{\"type\":\"done\",\"exit\":" + exit + "}"); }

    /**
     * Print one error record and end the JVM at once with the kind's exit code;
     * callable from any thread (the first caller's record is the only one).
     * Under {@code batch} the {@code done} record with that code follows it.
     */
    public static void die(Fail f) {
        synchronized (LOCK) {
            if (!dying) {
                dying = true;
                OUT.print(errorRecord(f) + "\n");
                if (batch) OUT.print("{\"type\":\"done\",\"exit\":" + f.code + "}\n");
                OUT.flush();
                Runtime.getRuntime().halt(f.code);
            }
        }
        for (;;) LockSupport.park(); // another thread is halting the VM
    }

    /** Flush and end the JVM with status 0 without waiting for any process (continuous mode, the end of a run). */
    public static void exit() {
        synchronized (LOCK) {
            OUT.flush();
        }
        Runtime.getRuntime().halt(0);
    }

    /** A JSON string literal. */
    public static String str(String s) {
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

    /** A record built field by field, written with {@link #emit}. */
    public static final class Rec {
        private final StringBuilder b = new StringBuilder(256);

        public Rec(String type) { b.append("{\"type\":").append(str(type)); }

        public Rec s(String key, String value) {
            b.append(",\"").append(key).append("\":").append(str(value));
            return this;
        }

        public Rec n(String key, long value) {
            b.append(",\"").append(key).append("\":").append(value);
            return this;
        }

        public Rec list(String key, List<String> values) {
            b.append(",\"").append(key).append("\":[");
            for (int i = 0; i < values.size(); i++) b.append(i == 0 ? "" : ",").append(str(values.get(i)));
            b.append(']');
            return this;
        }

        public void emit() { line(b.append('}').toString()); }

        /** The record as it would be written now, without writing it (for the tests). */
        @Override
        public String toString() { return b + "}"; }
    }
}
