package dev.weft.parallel.pipeline;

import dev.weft.comm.Communicator;
import dev.weft.comm.PendingOp;
import dev.weft.comm.ReduceOp;
import dev.weft.models.Parameters;
import dev.weft.util.Tensors;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch.ScalarType;

/**
 * Parameters that several pipeline stages hold under one name: tied embeddings, where the first stage
 * holds the token embedding and the last stage a copy for its head ({@link Parameters#markTiedCopy}).
 * As Megatron's embedding group does, the stages find each other at start over the pipeline group,
 * the copies start from the original's value, and before every step each holder's gradient is
 * replaced by the sum over all holders (added in stage order, so every holder gets the same bits).
 * The optimizer lays each tied parameter out alone, so the holders own the same elements of it.
 */
public final class StageTies {
  private static final int TAG = 1 << 30; // above every transfer tag of a step (TransferTags)

  /** One tied parameter: the stage holding the original, every stage holding it (ascending), its transfer tag. */
  public record Tie(String name, int source, int[] holders, int tag) {}

  private final Communicator pp;
  private final Map<String, Tie> ties;
  private final Set<String> copies;

  private StageTies(Communicator pp, Map<String, Tie> ties, Set<String> copies) {
    this.pp = pp;
    this.ties = ties;
    this.copies = copies;
  }

  /** The ties among {@code pp}'s stages; every rank of the group must call it (two small collectives). */
  public static StageTies find(Parameters params, Communicator pp) {
    Set<String> mine = new TreeSet<>();
    for (Parameters.Param p : params.list()) if (params.isTiedCopy(p.name())) mine.add(p.name());
    if (pp == null || pp.size() == 1) {
      if (!mine.isEmpty()) throw new IllegalStateException("tied copies " + mine + " without pipeline stages");
      return new StageTies(pp, Map.of(), Set.of());
    }
    List<String> names = new ArrayList<>(allNames(mine, pp));
    if (names.isEmpty()) return new StageTies(pp, Map.of(), Set.of());
    long[] held = new long[names.size()]; // 2: the original, 1: a copy, 0: not held
    for (int i = 0; i < held.length; i++) {
      String n = names.get(i);
      held[i] = !params.contains(n) ? 0 : params.isTiedCopy(n) ? 1 : 2;
    }
    Tensor all = Tensors.empty(ScalarType.Long, (long) held.length * pp.size());
    pp.allGather(all, Tensors.ofLongs(held));
    long[] got = Tensors.toLongs(all);
    Map<String, Tie> ties = new LinkedHashMap<>();
    for (int i = 0; i < names.size(); i++) {
      int source = -1;
      List<Integer> holders = new ArrayList<>();
      for (int r = 0; r < pp.size(); r++) {
        long h = got[r * held.length + i];
        if (h > 0) holders.add(r);
        if (h == 2 && source < 0) source = r;
      }
      if (source < 0) throw new IllegalStateException("no pipeline stage holds the original of tied parameter " + names.get(i));
      ties.put(names.get(i), new Tie(names.get(i), source, holders.stream().mapToInt(Integer::intValue).toArray(), TAG + 2 * i));
    }
    return new StageTies(pp, ties, Set.copyOf(mine));
  }

  /** Every stage's copy names, gathered as zero-padded UTF-8 codes. */
  private static Set<String> allNames(Set<String> mine, Communicator pp) {
    byte[] bytes = String.join("\n", mine).getBytes(StandardCharsets.UTF_8);
    Tensor len = Tensors.ofLongs(bytes.length);
    pp.allReduce(len, ReduceOp.MAX);
    int width = (int) Tensors.toLongs(len)[0];
    Set<String> out = new TreeSet<>();
    if (width == 0) return out;
    long[] codes = new long[width];
    for (int i = 0; i < bytes.length; i++) codes[i] = bytes[i] & 0xff;
    Tensor all = Tensors.empty(ScalarType.Long, (long) width * pp.size());
    pp.allGather(all, Tensors.ofLongs(codes));
    long[] got = Tensors.toLongs(all);
    for (int r = 0; r < pp.size(); r++) {
      byte[] b = new byte[width];
      int n = 0;
      while (n < width && got[r * width + n] != 0) b[n] = (byte) got[r * width + n++];
      for (String s : new String(b, 0, n, StandardCharsets.UTF_8).split("\n")) if (!s.isEmpty()) out.add(s);
    }
    return out;
  }

  /** Names of the tied parameters this stage holds (originals and copies). */
  public Set<String> held() {
    Set<String> out = new TreeSet<>();
    ties.values().forEach(t -> { if (holds(t, pp.rank())) out.add(t.name()); });
    return out;
  }

  /** Names of the copies this stage holds (their originals live on another stage). */
  public Set<String> copies() { return copies; }

  public boolean isEmpty() { return ties.isEmpty(); }

  /** Copies the original's value into every copy (before the optimizer takes the parameters over). */
  public void syncValues(Parameters params) {
    try (NoGradGuard ng = new NoGradGuard()) {
      for (String name : held()) {
        Tie t = ties.get(name);
        Tensor value = params.get(name).tensor();
        if (t.source() == pp.rank()) {
          List<PendingOp> sends = new ArrayList<>();
          Tensor out = value.detach().contiguous();
          for (int r : t.holders()) if (r != t.source()) sends.add(pp.sendAsync(out, r, t.tag()));
          sends.forEach(PendingOp::await);
        } else {
          Tensor in = value.detach().contiguous().clone();
          pp.recvAsync(in, t.source(), t.tag()).await();
          value.detach().copy_(in);
        }
      }
    }
  }

  /**
   * Replaces {@code owned} (this stage's owned gradient elements of {@code name}) by the sum over every
   * stage holding it, added in stage order.
   */
  public void sum(String name, Tensor owned) {
    Tie t = ties.get(name);
    int me = pp.rank();
    Tensor[] parts = new Tensor[pp.size()];
    List<PendingOp> ops = new ArrayList<>();
    Tensor mine = owned.clone();
    for (int r : t.holders()) {
      if (r == me) {
        parts[r] = mine;
        continue;
      }
      ops.add(pp.sendAsync(mine, r, t.tag() + 1));
      parts[r] = Tensors.emptyLike(owned, owned.scalar_type(), owned.numel());
      ops.add(pp.recvAsync(parts[r], r, t.tag() + 1));
    }
    ops.forEach(PendingOp::await);
    Tensor total = null;
    for (int r : t.holders()) total = total == null ? parts[r].clone() : total.add(parts[r]);
    owned.copy_(total);
  }

  private static boolean holds(Tie t, int rank) { return Arrays.stream(t.holders()).anyMatch(h -> h == rank); }
}
