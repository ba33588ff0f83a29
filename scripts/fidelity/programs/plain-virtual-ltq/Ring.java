// A plain virtual-thread ring (written here for ringbench issue 10, not taken
// from anywhere): n virtual threads (Thread.ofVirtual), one LinkedTransferQueue
// per thread, thread i takes from its own queue and puts into thread i+1's.
// LinkedTransferQueue: unbounded, so a put never blocks (an asynchronous send,
// as in Erlang and as in the ringbench mailbox), lock-free, and a put that finds
// the receiver already waiting in take() hands the value straight to it.
// One token carrying the number of hops left is put into thread 0's queue; each
// thread that receives v > 1 passes v - 1 on, the one that receives 1 tells
// main. n * m hops in all.
//
//   java -Djdk.virtualThreadScheduler.parallelism=CORES -cp . Ring N M
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedTransferQueue;

public class Ring {
    public static void main(String[] args) throws InterruptedException {
        int n = Integer.parseInt(args[0]);
        long m = Long.parseLong(args[1]);
        long hops = n * m;

        @SuppressWarnings("unchecked")
        LinkedTransferQueue<Long>[] queues = new LinkedTransferQueue[n];
        for (int i = 0; i < n; i++) queues[i] = new LinkedTransferQueue<>();
        CountDownLatch done = new CountDownLatch(1);

        for (int i = 0; i < n; i++) {
            LinkedTransferQueue<Long> in = queues[i], out = queues[(i + 1) % n];
            Thread.ofVirtual().start(() -> {
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
        }

        queues[0].put(hops);
        done.await(); // virtual threads are daemons: the ring ends with main
        System.out.println("hops: " + hops);
    }
}
