import java.util.concurrent.CountDownLatch;
import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.Props;

/**
 * A plain Pekko classic ring (Java API), written for ringbench's comparison: N actors, each told
 * its successor's ActorRef, one Integer token of N*M sent on as v - 1; the actor that receives 1
 * releases main. Usage: java -cp 'lib/*:.' Ring N M (Pekko settings as -D system properties).
 */
public final class Ring {
    private Ring() {}

    static final class Node extends AbstractActor {
        private final CountDownLatch done;
        private ActorRef next;

        Node(CountDownLatch done) { this.done = done; }

        @Override
        public Receive createReceive() {
            return receiveBuilder()
                    .match(Integer.class, v -> {
                        if (v == 1) done.countDown();
                        else next.tell(v - 1, getSelf());
                    })
                    .match(ActorRef.class, r -> next = r)
                    .build();
        }
    }

    public static void main(String[] args) throws InterruptedException {
        int n = Integer.parseInt(args[0]), m = Integer.parseInt(args[1]);
        ActorSystem system = ActorSystem.create("ring");
        CountDownLatch done = new CountDownLatch(1);
        Props props = Props.create(Node.class, () -> new Node(done));
        ActorRef[] nodes = new ActorRef[n];
        for (int i = 0; i < n; i++) nodes[i] = system.actorOf(props);
        for (int i = 0; i < n; i++) nodes[i].tell(nodes[(i + 1) % n], ActorRef.noSender());
        nodes[0].tell(n * m, ActorRef.noSender());
        done.await();
        System.out.println(n * m);
        Runtime.getRuntime().halt(0); // no teardown: the JVM ends here
    }
}
