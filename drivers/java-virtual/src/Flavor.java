// What makes this folder's driver differ from drivers/java-threads.
final class Flavor {
    static final String NAME = "java-virtual";
    /** One virtual thread (JDK 21+, Thread.ofVirtual) per process. */
    static final boolean VIRTUAL = true;
    /** Unused for virtual threads (their stacks live in the heap and grow as needed). */
    static final long STACK = 0;
    /** Default mailbox (see RingBench.newBox and README). */
    static final String MAILBOX = "park";
    /** Rough Java heap per idle process, for the pre-spawn limit check (measured, see README). */
    static final long BYTES_PER_PROC = 900;

    private Flavor() {}
}
