package dev.weft.models;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;

/**
 * The named parameters of one rank, in registration order, each with the global tensor it is a
 * slice of. Owns the tensors: they live as long as the model.
 */
public final class Parameters {
  /**
   * One parameter. {@code globalShape} is the unsplit shape; this rank holds part {@code shardIndex}
   * of {@code shardCount} equal parts along {@code shardDim} ({@code -1}: the whole tensor).
   */
  public record Param(String name, Tensor tensor, long[] globalShape, int shardDim, int shardIndex, int shardCount) {
    public boolean isSharded() { return shardDim >= 0 && shardCount > 1; }
    /** Shape of this rank's slice (also while ZeRO-3 has released the tensor's storage). */
    public long[] localShape() {
      long[] s = globalShape.clone();
      if (isSharded()) s[shardDim] /= shardCount;
      return s;
    }

    /** Elements of the whole (unsplit) tensor. */
    public long globalNumel() {
      long n = 1;
      for (long d : globalShape) n *= d;
      return n;
    }

    /** Elements this rank's slice holds (also while ZeRO-3 has released the tensor's storage). */
    public long numel() { return globalNumel() / (isSharded() ? shardCount : 1); }
  }

  private final Map<String, Param> byName = new LinkedHashMap<>();
  private final java.util.Set<String> partialGrads = new java.util.LinkedHashSet<>();
  private final java.util.Set<String> tiedCopies = new java.util.LinkedHashSet<>();

  public Tensor add(Param p) {
    if (byName.putIfAbsent(p.name(), p) != null) throw new IllegalStateException("duplicate parameter " + p.name());
    return p.tensor();
  }

  /**
   * Marks a replicated parameter whose gradient each tensor-parallel rank sees only in part (it is
   * applied to this rank's slice of the sequence under sequence parallelism); such gradients are
   * summed across the group after backward.
   */
  public void markPartialGrad(String name) {
    get(name);
    partialGrads.add(name);
  }

  public List<Param> partialGradParams() {
    return partialGrads.stream().map(byName::get).toList();
  }

  /**
   * Marks a parameter as this rank's copy of one that another pipeline stage registered under the same
   * name (a tied head on the last stage, the embedding on the first): the framework starts it from the
   * original's value, sums the two gradients before each step and saves it once.
   */
  public void markTiedCopy(String name) {
    get(name);
    tiedCopies.add(name);
  }

  public boolean isTiedCopy(String name) { return tiedCopies.contains(name); }

  public List<Param> list() { return Collections.unmodifiableList(new ArrayList<>(byName.values())); }

  public boolean contains(String name) { return byName.containsKey(name); }

  public Param get(String name) {
    Param p = byName.get(name);
    if (p == null) throw new IllegalArgumentException("no parameter " + name);
    return p;
  }

  public TensorVector tensors() {
    TensorVector v = new TensorVector();
    for (Param p : byName.values()) v.push_back(p.tensor());
    return v;
  }

  public long numel() {
    long n = 0;
    for (Param p : byName.values()) n += p.numel();
    return n;
  }

  public int size() { return byName.size(); }
}
