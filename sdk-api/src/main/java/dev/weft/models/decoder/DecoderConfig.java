package dev.weft.models.decoder;

import dev.weft.models.Experts;
import dev.weft.models.moe.MoeConfig;
import dev.weft.models.moe.MoeNames;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything that decides a decoder's computation, as a family reads it from config.json:
 * sizes ({@code headDim} explicit, it may differ from hidden / heads), norm kind and eps, positions
 * (RoPE with its scaling; {@code rope == null}: learned position embeddings), which projections have
 * biases, per-head q/k RMSNorm (Qwen3), a sliding attention window (Mistral; null: none), the MLP kind,
 * a tied head, the init scale, the training context, the stop tokens for generation and, for a
 * mixture-of-experts family, its {@link MoeConfig} (null: every layer's MLP is dense).
 */
public record DecoderConfig(int vocab, int hidden, int intermediate, int layers, int heads, int kvHeads, int headDim,
                            Norm norm, double normEps, RopeScaling rope, boolean qkvBias, boolean oBias, boolean mlpBias,
                            boolean qkNorm, Integer slidingWindow, Mlp mlp, boolean tied, double initStd, int seqLen,
                            List<Long> eos, MoeConfig moe) {
  public enum Norm { LAYER, RMS }

  public enum Mlp { GELU, SWIGLU }

  public DecoderConfig {
    eos = List.copyOf(eos);
  }

  /** A dense decoder (no MoE layers). */
  public DecoderConfig(int vocab, int hidden, int intermediate, int layers, int heads, int kvHeads, int headDim, Norm norm,
                       double normEps, RopeScaling rope, boolean qkvBias, boolean oBias, boolean mlpBias, boolean qkNorm,
                       Integer slidingWindow, Mlp mlp, boolean tied, double initStd, int seqLen, List<Long> eos) {
    this(vocab, hidden, intermediate, layers, heads, kvHeads, headDim, norm, normEps, rope, qkvBias, oBias, mlpBias, qkNorm,
        slidingWindow, mlp, tied, initStd, seqLen, eos, null);
  }

  public int qDim() { return heads * headDim; }
  public int kvDim() { return kvHeads * headDim; }

  public DecoderConfig withBiases(boolean qkv, boolean o, boolean mlp) {
    return new DecoderConfig(vocab, hidden, intermediate, layers, heads, kvHeads, headDim, norm, normEps, rope, qkv, o, mlp,
        qkNorm, slidingWindow, this.mlp, tied, initStd, seqLen, eos, moe);
  }

  public DecoderConfig withQkNorm(boolean on) {
    return new DecoderConfig(vocab, hidden, intermediate, layers, heads, kvHeads, headDim, norm, normEps, rope, qkvBias, oBias,
        mlpBias, on, slidingWindow, mlp, tied, initStd, seqLen, eos, moe);
  }

  public DecoderConfig withSlidingWindow(Integer window) {
    return new DecoderConfig(vocab, hidden, intermediate, layers, heads, kvHeads, headDim, norm, normEps, rope, qkvBias, oBias,
        mlpBias, qkNorm, window, mlp, tied, initStd, seqLen, eos, moe);
  }

  public DecoderConfig withMoe(MoeConfig m) {
    return new DecoderConfig(vocab, hidden, intermediate, layers, heads, kvHeads, headDim, norm, normEps, rope, qkvBias, oBias,
        mlpBias, qkNorm, slidingWindow, mlp, tied, initStd, seqLen, eos, m);
  }

  /** Whether layer {@code i}'s MLP is the MoE block. */
  public boolean sparse(int i) { return moe != null && moe.sparse(i); }

  /** Every tensor of the whole model by name, with its shape: what a checkpoint of this config holds. */
  public Map<String, long[]> tensors(DecoderNames n) {
    Map<String, long[]> t = new LinkedHashMap<>();
    t.put(n.embed() + ".weight", new long[] {vocab, hidden});
    if (rope == null) t.put(n.positions() + ".weight", new long[] {seqLen, hidden});
    for (int i = 0; i < layers; i++) {
      norm(t, n.layer(i, n.inNorm()), hidden);
      linear(t, n.layer(i, n.q()), qDim(), hidden, qkvBias);
      linear(t, n.layer(i, n.k()), kvDim(), hidden, qkvBias);
      linear(t, n.layer(i, n.v()), kvDim(), hidden, qkvBias);
      linear(t, n.layer(i, n.o()), hidden, qDim(), oBias);
      if (qkNorm) {
        t.put(n.layer(i, n.qNorm()) + ".weight", new long[] {headDim});
        t.put(n.layer(i, n.kNorm()) + ".weight", new long[] {headDim});
      }
      norm(t, n.layer(i, n.postNorm()), hidden);
      if (sparse(i)) {
        moe(t, n.layer(i, ""));
        continue;
      }
      if (mlp == Mlp.SWIGLU) linear(t, n.layer(i, n.gate()), intermediate, hidden, mlpBias);
      linear(t, n.layer(i, n.up()), intermediate, hidden, mlpBias);
      linear(t, n.layer(i, n.down()), hidden, intermediate, mlpBias);
    }
    norm(t, n.finalNorm(), hidden);
    if (!tied) t.put(n.head() + ".weight", new long[] {vocab, hidden});
    return t;
  }

  private void moe(Map<String, long[]> t, String layer) {
    MoeNames mn = moe.names();
    linear(t, mn.router(layer), moe.experts(), hidden, false);
    for (int e = 0; e < moe.experts(); e++) {
      int expert = e;
      swiglu(t, mn.parts(), p -> Experts.name(mn.experts(layer), expert, p), moe.expertHidden());
    }
    if (moe.shared()) {
      swiglu(t, mn.parts(), p -> mn.shared(layer, p), moe.sharedHidden());
      linear(t, mn.sharedGate(layer), 1, hidden, false);
    }
  }

  private void swiglu(Map<String, long[]> t, List<String> parts, java.util.function.Function<String, String> name, long f) {
    linear(t, name.apply(parts.get(0)), f, hidden, false);
    linear(t, name.apply(parts.get(1)), f, hidden, false);
    linear(t, name.apply(parts.get(2)), hidden, f, false);
  }

  private void norm(Map<String, long[]> t, String name, long dim) {
    t.put(name + ".weight", new long[] {dim});
    if (norm == Norm.LAYER) t.put(name + ".bias", new long[] {dim});
  }

  private static void linear(Map<String, long[]> t, String name, long out, long in, boolean bias) {
    t.put(name + ".weight", new long[] {out, in});
    if (bias) t.put(name + ".bias", new long[] {out});
  }

  /** Parameters of the whole model. */
  public long parameterCount() {
    long total = 0;
    for (long[] s : tensors(DecoderNames.LLAMA).values()) {
      long n = 1;
      for (long d : s) n *= d;
      total += n;
    }
    return total;
  }

  /** Training FLOPs per token: 6 × matmul weights + attention scores. */
  public double trainingFlopsPerToken() {
    double h = hidden;
    double mlpMats = mlp == Mlp.SWIGLU ? 3 : 2;
    double matmul = layers * (h * qDim() + 2 * h * kvDim() + (double) qDim() * h) + (double) vocab * h;
    for (int i = 0; i < layers; i++) { // a token passes through its k experts, the shared one and the router
      matmul += sparse(i) ? 3 * h * ((double) moe.topK() * moe.expertHidden() + moe.sharedHidden()) + h * (moe.experts() + 1)
          : mlpMats * h * intermediate;
    }
    long span = slidingWindow == null ? seqLen : Math.min(seqLen, slidingWindow);
    return 6 * matmul + 6.0 * layers * span * qDim();
  }
}
