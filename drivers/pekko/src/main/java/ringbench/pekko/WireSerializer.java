package ringbench.pekko;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.serialization.ByteBufferSerializer;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializerWithStringManifest;
import ringbench.pekko.Messages.Finished;
import ringbench.pekko.Messages.Hello;
import ringbench.pekko.Messages.Kind;
import ringbench.pekko.Messages.Link;
import ringbench.pekko.Messages.NodeView;
import ringbench.pekko.Messages.Ready;
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

    @Override
    public String manifest(Object o) {
        return switch (o) {
            case Token t -> "T";
            case TraceToken t -> "R";
            case Stop s -> "S";
            case Link l -> "L";
            case Ready r -> "Y";
            case Finished f -> "F";
            case Sum s -> "U";
            case SpawnOn s -> "P";
            case SpawnedOn s -> "Q";
            case Hello h -> "H";
            case ViewStart v -> "V";
            case View v -> "W";
            case NodeView v -> "N";
            default -> throw new IllegalArgumentException("not a ring message: " + o.getClass());
        };
    }

    @Override
    public void toBinary(Object o, ByteBuffer b) {
        switch (o) {
            case Token t -> b.putLong(t.value());
            case TraceToken t -> b.putLong(t.value()).putInt(t.from());
            case Stop s -> b.putLong(s.sum()).putInt(s.left()).putLong(s.cross()).putInt(s.node());
            case Link l -> {
                ref(b, l.next());
                b.put((byte) (l.fromOther() ? 1 : 0));
            }
            case Ready r -> { }
            case Finished f -> b.putLong(f.value());
            case Sum s -> b.putLong(s.value()).putLong(s.cross());
            case SpawnOn s -> b.putInt(s.kind().ordinal()).putInt(s.n()).putLong(s.total())
                    .put((byte) (s.print() ? 1 : 0)).putInt(s.first()).putInt(s.step()).putInt(s.count());
            case SpawnedOn s -> {
                b.putInt(s.first()).putInt(s.step()).putInt(s.procs().length);
                for (ActorRef r : s.procs()) ref(b, r);
            }
            case Hello h -> b.putInt(h.node());
            case ViewStart v -> { }
            case View v -> { }
            case NodeView v -> {
                string(b, v.name());
                b.putInt(v.values().length);
                for (long x : v.values()) b.putLong(x);
            }
            default -> throw new IllegalArgumentException("not a ring message: " + o.getClass());
        }
    }

    @Override
    public Object fromBinary(ByteBuffer b, String manifest) {
        return switch (manifest) {
            case "T" -> new Token(b.getLong());
            case "R" -> new TraceToken(b.getLong(), b.getInt());
            case "S" -> new Stop(b.getLong(), b.getInt(), b.getLong(), b.getInt());
            case "L" -> new Link(ref(b), b.get() == 1);
            case "Y" -> Ready.READY;
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
            case "H" -> new Hello(b.getInt());
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
        return switch (o) {
            case SpawnedOn s -> 64 + s.procs().length * (4 + 1024);
            case Link l -> 64 + 4 + 1024;
            case NodeView v -> 64 + 4 * v.name().length() + 8 * v.values().length;
            default -> 64;
        };
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
