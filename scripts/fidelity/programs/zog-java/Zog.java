// Zog.java -- RECONSTRUCTED for ringbench issue 10; not the original text.
//
// Ericsson report ETX/DN/SU-98:024 (J Halen, R Karlsson, M Nilsson, 1998-11-02),
// "Performance Measurements of Threads in Java and Processes in Erlang", ran one
// program written in Java (JDK 1.1.6) and in Erlang and appended both sources.
// The Java source is in no stored copy that could be found; its Erlang twin,
// zog.erl ("- September 1998 - roland"), is. This file is zog.erl statement by
// statement in the Java of JDK 1.1: one Thread per process, a mailbox per
// process made of a java.util.Vector under the object's monitor
// (synchronized + wait/notify: JDK 1.1 has no java.util.concurrent), a message
// is an Integer object.
//
// zog.erl: run/3 (the main thread here) spawns N-1 processes, each sending to
// the one spawned before it, the first to run itself: a ring of N. run sends M
// to the last one spawned and then takes part in the ring as process/1 does:
// receive X, send X-1 on, stop once X < 0 (so the count runs down through 0 and
// a negative value stops the processes it reaches). run returns K = -X and
// reports M + K messages.
//
//   java -cp . Zog N M        (N processes, M messages: M is the hop count)

import java.util.Vector;

class Mailbox {
    private Vector queue = new Vector();

    public synchronized void send(Object msg) {
        queue.addElement(msg);
        notify();
    }

    public synchronized Object receive() {
        while (queue.isEmpty()) {
            try {
                wait();
            } catch (InterruptedException e) {
            }
        }
        Object msg = queue.firstElement();
        queue.removeElementAt(0);
        return msg;
    }
}

public class Zog extends Thread {
    Mailbox mailbox = new Mailbox();
    Mailbox next;

    Zog(Mailbox next) {
        this.next = next;
    }

    public void run() {
        process(mailbox, next);
    }

    // process(Pid) -> receive M -> Pid ! M-1, if M < 0 -> -M; true -> process(Pid) end end.
    static int process(Mailbox self, Mailbox pid) {
        for (;;) {
            int m = ((Integer) self.receive()).intValue();
            pid.send(new Integer(m - 1));
            if (m < 0) return -m;
        }
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 16000;
        int m = args.length > 1 ? Integer.parseInt(args[1]) : 1000000;
        if (n < 1) {
            System.out.println("Must be at least 1 process");
            return;
        }
        Mailbox self = new Mailbox();

        long t0 = System.currentTimeMillis();
        // setup(N, OldPid): spawn process(OldPid), then setup(N-1, NewPid)
        Mailbox pid = self;
        for (int i = 0; i < n - 1; i++) {
            Zog z = new Zog(pid);
            z.start();
            pid = z.mailbox;
        }
        long t1 = System.currentTimeMillis() - t0;
        if (n == 1) System.out.println("Setup : " + t1 / 1000.0 + " s (0 spawns)");
        else System.out.println("Setup : " + t1 / 1000.0 + " s (" + 1000.0 * t1 / (n - 1)
                + " us per spawn) (" + (n - 1) + " spawns)");

        long t2 = System.currentTimeMillis();
        pid.send(new Integer(m));
        int k = process(self, pid);
        long t3 = System.currentTimeMillis() - t2;
        System.out.println("Run   : " + t3 / 1000.0 + " s (" + 1000.0 * t3 / (m + k)
                + " us per msg) (" + (m + k) + " msgs)");
        System.exit(0); // halt()
    }
}
