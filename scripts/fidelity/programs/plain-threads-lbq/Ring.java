// A plain platform-thread ring (written here for ringbench issue 10, not taken
// from anywhere): n threads, one LinkedBlockingQueue per thread, thread i takes
// from its own queue and puts into thread i+1's. One token carrying the number
// of hops left is put into thread 0's queue; each thread that receives v > 1
// passes v - 1 on, the one that receives 1 tells main. n * m hops in all.
//
//   java -cp . Ring N M
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;

public class Ring {
    public static void main(String[] args) throws InterruptedException {
        int n = Integer.parseInt(args[0]);
        long m = Long.parseLong(args[1]);
        long hops = n * m;

        @SuppressWarnings("unchecked")
        BlockingQueue<Long>[] queues = new BlockingQueue[n];
        for (int i = 0; i < n; i++) queues[i] = new LinkedBlockingQueue<>();
        CountDownLatch done = new CountDownLatch(1);

        for (int i = 0; i < n; i++) {
            BlockingQueue<Long> in = queues[i], out = queues[(i + 1) % n];
            Thread t = new Thread(() -> {
                try {
                    for (;;) {
                        long v = in.take();
                        if (v == 1) done.countDown();
                        else out.put(v - 1);
                    }
                } catch (InterruptedException e) {
                    // not reached: nobody interrupts the ring
                }
            });
            t.setDaemon(true); // the ring's threads end with main
            t.start();
        }

        queues[0].put(hops);
        done.await();
        System.out.println("hops: " + hops);
    }
}
