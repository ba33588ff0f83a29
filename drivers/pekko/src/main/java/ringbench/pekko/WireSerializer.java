package ringbench.pekko;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.serialization.ByteBufferSerializer;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializerWithStringManifest;
import ringbench.pekko.Messages.Arrivals;
import ringbench.pekko.Messages.Assign;
import ringbench.pekko.Messages.Finished;
import ringbench.pekko.Messages.Hello;
import ringbench.pekko.Messages.Kind;
import ringbench.pekko.Messages.LinkOn;
import ringbench.pekko.Messages.NodeView;
import ringbench.pekko.Messages.SpawnOn;
import ringbench.pekko.Messages.SpawnedOn;
import ringbench.pekko.Messages.Stop;
import ringbench.pekko.Messages.Sum;
import ringbench.pekko.Messages.Token;
import ringbench.pekko.Messages.TraceToken;
import ringbench.pekko.Messages.View;
import ringbench.pekko.Messages.ViewStart;

/**
 * The serializer of the messages that cross nodes ({@link Messages.Wire}), as Pekko's serialization guide
 * has a user write one for small messages on a hot path: a {@code SerializerWithStringManifest} (a
 * one-letter manifest per message class) that is also a {@code ByteBufferSerializer}, so that Artery
 * writes a token's 8 bytes straight into its pooled buffer with no byte array in between. An actor
 * reference travels as its serialized path ({@code Serialization.serializedActorPath}) and is resolved by
 * the receiving system's provider. The alternative a Pekko user might reach for, Jackson (pekko-
 * serialization-jackson, CBOR or JSON), is not used: README, "A ring across nodes".
 */
public final class WireSerializer extends SerializerWithStringManifest implements ByteBufferSerializer {
    /** Outside Pekko's reserved 0 … 40. */
    static final int ID = 77_001;

    private final ExtendedActorSystem system;

    public WireSerializer(ExtendedActorSystem system) { this.system = system; }

    @Override
    public int identifier() { return ID; }

    // Type tests are instanceof chains, not a switch over types: the driver also builds at release 17
    // (`pekko@jdk17`, driver.toml [installation]), where a switch cannot match types.

    @Override
    public String manifest(Object o) {
        if (o instanceof Token) return "T";
        if (o instanceof TraceToken) return "R";
        if (o instanceof Stop) return "S";
        if (o instanceof Finished) return "F";
        if (o instanceof Sum) return "U";
        if (o instanceof SpawnOn) return "P";
        if (o instanceof SpawnedOn) return "Q";
        if (o instanceof LinkOn) return "K";
        if (o instanceof Arrivals) return "D";
        if (o instanceof Hello) return "H";
        if (o instanceof Assign) return "A";
        if (o instanceof ViewStart) return "V";
        if (o instanceof View) return "W";
        if (o instanceof NodeView) return "N";
        throw notRing(o);
    }

    @Override
    public void toBinary(Object o, ByteBuffer b) {
        if (o instanceof Token t) {
            b.putLong(t.value());
        } else if (o instanceof TraceToken t) {
            b.putLong(t.value()).putInt(t.from());
        } else if (o instanceof Stop s) {
            b.putLong(s.sum()).putInt(s.left()).putLong(s.cross()).putInt(s.node());
        } else if (o instanceof Finished f) {
            b.putLong(f.value());
        } else if (o instanceof Sum s) {
            b.putLong(s.value()).putLong(s.cross());
        } else if (o instanceof SpawnOn s) {
            b.putInt(s.kind().ordinal()).putInt(s.n()).putLong(s.total())
                    .put((byte) (s.print() ? 1 : 0)).putInt(s.first()).putInt(s.step()).putInt(s.count());
        } else if (o instanceof SpawnedOn s) {
            b.putInt(s.first()).putInt(s.step()).putInt(s.procs().length);
            for (ActorRef r : s.procs()) ref(b, r);
        } else if (o instanceof LinkOn l) {
            b.putInt(l.first()).putInt(l.step()).putInt(l.n()).putInt(l.k()).putInt(l.placement()).putInt(l.next().length);
            for (ActorRef r : l.next()) ref(b, r);
        } else if (o instanceof Arrivals r) {
            b.putLong(r.count());
        } else if (o instanceof Hello h) {
            b.putInt(h.node());
        } else if (o instanceof Assign a) {
            b.putInt(a.node());
        } else if (o instanceof NodeView v) {
            string(b, v.name());
            b.putInt(v.values().length);
            for (long x : v.values()) b.putLong(x);
        } else if (!(o instanceof ViewStart || o instanceof View)) {
            // ViewStart and View carry nothing but their manifest.
            throw notRing(o);
        }
    }

    private static IllegalArgumentException notRing(Object o) {
        return new IllegalArgumentException("not a ring message: " + o.getClass());
    }

    @Override
    public Object fromBinary(ByteBuffer b, String manifest) {
        return switch (manifest) {
            case "T" -> new Token(b.getLong());
            case "R" -> new TraceToken(b.getLong(), b.getInt());
            case "S" -> new Stop(b.getLong(), b.getInt(), b.getLong(), b.getInt());
            case "F" -> new Finished(b.getLong());
            case "U" -> new Sum(b.getLong(), b.getLong());
            case "P" -> new SpawnOn(Kind.values()[b.getInt()], b.getInt(), b.getLong(), b.get() == 1, b.getInt(),
                    b.getInt(), b.getInt());
            case "Q" -> {
                int first = b.getInt(), step = b.getInt();
                ActorRef[] procs = new ActorRef[b.getInt()];
                for (int i = 0; i < procs.length; i++) procs[i] = ref(b);
                yield new SpawnedOn(first, step, procs);
            }
            case "K" -> {
                int first = b.getInt(), step = b.getInt(), n = b.getInt(), k = b.getInt(), placement = b.getInt();
                ActorRef[] next = new ActorRef[b.getInt()];
                for (int i = 0; i < next.length; i++) next[i] = ref(b);
                yield new LinkOn(first, step, n, k, placement, next);
            }
            case "D" -> new Arrivals(b.getLong());
            case "H" -> new Hello(b.getInt());
            case "A" -> new Assign(b.getInt());
            case "V" -> ViewStart.NOW;
            case "W" -> View.ASK;
            case "N" -> {
                String name = string(b);
                long[] values = new long[b.getInt()];
                for (int i = 0; i < values.length; i++) values[i] = b.getLong();
                yield new NodeView(name, values);
            }
            default -> throw new IllegalArgumentException("unknown manifest '" + manifest + "'");
        };
    }

    @Override
    public byte[] toBinary(Object o) {
        // Outside Artery's buffers (a message too large for them goes through here): a buffer of the
        // largest size any message needs, copied out.
        ByteBuffer b = ByteBuffer.allocate(size(o));
        toBinary(o, b);
        byte[] out = new byte[b.position()];
        b.flip().get(out);
        return out;
    }

    @Override
    public Object fromBinary(byte[] bytes, String manifest) { return fromBinary(ByteBuffer.wrap(bytes), manifest); }

    /** An upper bound of the bytes {@code o} takes. */
    private static int size(Object o) {
        if (o instanceof SpawnedOn s) return 64 + s.procs().length * (4 + 1024);
        if (o instanceof LinkOn l) return 64 + l.next().length * (4 + 1024);
        if (o instanceof NodeView v) return 64 + 4 * v.name().length() + 8 * v.values().length;
        return 64;
    }

    private void ref(ByteBuffer b, ActorRef r) { string(b, Serialization.serializedActorPath(r)); }

    private ActorRef ref(ByteBuffer b) { return system.provider().resolveActorRef(string(b)); }

    private static void string(ByteBuffer b, String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        b.putInt(bytes.length).put(bytes);
    }

    private static String string(ByteBuffer b) {
        byte[] bytes = new byte[b.getInt()];
        b.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
