package ringbench.threads;

/** A message cell of {@link ParkBox}. */
final class Node {
    long v;
    volatile Node next;

    Node(long v) { this.v = v; }
}
