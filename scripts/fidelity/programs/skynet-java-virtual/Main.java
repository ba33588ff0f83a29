// Runs atemerev/skynet's "Virtual Thread per task" strategy once (VirtualThreads.skynetVirtual, made
// from the repository's file by prepare.sh) for the leaves and fanout given, and checks the sum.
public class Main {
  public static void main(String[] args) {
    int size = Integer.parseInt(args[0]), div = Integer.parseInt(args[1]);
    long sum = VirtualThreads.skynetVirtual(size, div);
    if (sum != (long) size * (size - 1) / 2) {
      throw new IllegalStateException("sum " + sum);
    }
    System.out.println(sum);
  }
}
