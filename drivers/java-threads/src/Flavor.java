// What makes this folder's driver differ from drivers/java-virtual; everything
// else is the shared source set in drivers/common/java/src.
final class Flavor {
    static final String NAME = "java-threads";
    /** One platform (OS) thread per process. */
    static final boolean VIRTUAL = false;

    private Flavor() {}
}
