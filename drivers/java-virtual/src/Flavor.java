// What makes this folder's driver differ from drivers/java-threads; everything
// else is the shared source set in drivers/common/java/src.
final class Flavor {
    static final String NAME = "java-virtual";
    /** One virtual thread (JDK 21+, Thread.ofVirtual) per process. */
    static final boolean VIRTUAL = true;

    private Flavor() {}
}
