package ringbench.driver;

/**
 * A request the driver cannot honour: becomes one {@code error} record and the
 * exit code of its kind (contract section 4). Throw it from anywhere on the
 * main thread; from a process thread call {@link Out#die} instead.
 */
public final class Fail extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The record's {@code kind}: bad_param, unknown_workload, unsupported, limit or failure. */
    public final String kind;
    /** The exit code of that kind. */
    public final int code;

    private Fail(String kind, int code, String message) {
        super(message, null, false, false);
        this.kind = kind;
        this.code = code;
    }

    public static Fail badParam(String message) { return new Fail("bad_param", 2, message); }

    public static Fail unknownWorkload(String message) { return new Fail("unknown_workload", 2, message); }

    public static Fail unsupported(String message) { return new Fail("unsupported", 2, message); }

    public static Fail limit(String message) { return new Fail("limit", 3, message); }

    public static Fail failure(String message) { return new Fail("failure", 1, message); }
}
