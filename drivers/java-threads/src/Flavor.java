// What makes this folder's driver differ from drivers/java-virtual.
final class Flavor {
    static final String NAME = "java-threads";
    /** One platform (OS) thread per process. */
    static final boolean VIRTUAL = false;
    /**
     * Requested stack per platform thread (Thread constructor stackSize). HotSpot
     * rounds a request below its minimum up to that minimum; see README.
     */
    static final long STACK = 256 * 1024;
    /** Default mailbox (see RingBench.newBox and README). */
    static final String MAILBOX = "park";
    /** Rough memory per idle process, for the pre-spawn limit check. */
    static final long BYTES_PER_PROC = 48 * 1024;

    private Flavor() {}
}
