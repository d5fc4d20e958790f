package dev.weft.models.llama;

import static org.bytedeco.pytorch.global.torch.scaled_dot_product_attention;
import static org.bytedeco.pytorch.global.torch.silu;

import dev.weft.models.CausalLm;
import dev.weft.models.KvCache;
import dev.weft.models.Layers;
import dev.weft.models.Parameters;
import dev.weft.models.StagedModel;
import dev.weft.models.LayerPartition;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.pytorch.DoubleOptional;
import org.bytedeco.pytorch.LongOptional;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptional;
import org.bytedeco.pytorch.global.torch;

/**
 * Llama: token embedding, pre-RMSNorm blocks of grouped-query attention with rotary positions and a
 * SwiGLU MLP, final RMSNorm, LM head (optionally tied to the embedding). Parameters carry Hugging
 * Face's names ({@code model.layers.3.self_attn.q_proj.weight}), so loading and exporting a
 * Hugging Face checkpoint is a copy. Like the GPT it knows nothing of parallelism: this rank's
 * heads, key/value heads and MLP columns are whatever its {@link Layers} split gives it.
 */
public final class Llama implements StagedModel, CausalLm {
  static final String EMBED = "model.embed_tokens";

  private final LlamaConfig cfg;
  private final Layers layers;
  private final LayerPartition partition;
  private final int stage;
  private final Rotary rotary;
  private final Layers.Embedding embed;
  private final List<List<Block>> chunks = new ArrayList<>();
  private final Layers.Linear norm;
  private final Layers.LmHead head;
  private final int localHeads;
  private final int localKv;

  /** The whole model on one pipeline stage. */
  public Llama(LlamaConfig cfg, Layers layers) {
    this(cfg, layers, LayerPartition.even(cfg.layers(), 1, 1), 0);
  }

  /** The part of the model pipeline rank {@code stage} holds. */
  public Llama(LlamaConfig cfg, Layers layers, LayerPartition partition, int stage) {
    this.cfg = cfg;
    this.layers = layers;
    this.partition = partition;
    this.stage = stage;
    this.rotary = new Rotary(cfg.headDim(), cfg.ropeTheta(), Math.max(cfg.seqLen(), 256));
    this.localHeads = cfg.heads() / layers.splits();
    this.localKv = cfg.kvHeads() / layers.splits();
    double std = cfg.initStd();
    boolean first = partition.virtualStage(stage, 0) == 0;
    boolean last = partition.virtualStage(stage, partition.chunks() - 1) == partition.virtualStages() - 1;
    embed = first ? layers.embedding(EMBED, cfg.vocab(), cfg.hidden(), std) : null;
    for (int c = 0; c < partition.chunks(); c++) {
      int k = partition.virtualStage(stage, c);
      List<Block> blocks = new ArrayList<>();
      for (int i = partition.start(k); i < partition.end(k); i++) blocks.add(new Block(i, std));
      chunks.add(blocks);
    }
    norm = last ? layers.rmsNorm("model.norm", cfg.hidden(), cfg.rmsEps()) : null;
    head = !last ? null : cfg.tied() ? layers.tiedLmHead(EMBED, cfg.hidden(), cfg.vocab())
        : layers.lmHead("lm_head", cfg.hidden(), cfg.vocab(), std);
  }

  private final class Block {
    final int index;
    final Layers.Linear inNorm, qkv, o, postNorm, gateUp, down;

    Block(int i, double std) {
      index = i;
      String n = "model.layers." + i;
      long h = cfg.hidden(), f = cfg.intermediate();
      inNorm = layers.rmsNorm(n + ".input_layernorm", h, cfg.rmsEps());
      qkv = layers.columns(List.of(n + ".self_attn.q_proj", n + ".self_attn.k_proj", n + ".self_attn.v_proj"), h,
          new long[] {cfg.qDim(), cfg.kvDim(), cfg.kvDim()}, std, false);
      o = layers.row(n + ".self_attn.o_proj", cfg.qDim(), h, std, false);
      postNorm = layers.rmsNorm(n + ".post_attention_layernorm", h, cfg.rmsEps());
      gateUp = layers.columns(List.of(n + ".mlp.gate_proj", n + ".mlp.up_proj"), h, new long[] {f, f}, std, false);
      down = layers.row(n + ".mlp.down_proj", f, h, std, false);
    }

    /** x may hold only part of the sequence (sequence parallelism); q, k, v always see all of it. */
    Tensor forward(Tensor x, KvCache cache) {
      long b = x.size(0), d = cfg.headDim();
      Tensor all = qkv.forward(inNorm.forward(x));
      long qw = localHeads * d, kw = localKv * d;
      long start = cache == null ? 0 : cache.length();
      Tensor q = rotary.apply(heads(all.narrow(2, 0, qw), b, localHeads), start);
      Tensor k = rotary.apply(heads(all.narrow(2, qw, kw), b, localKv), start);
      Tensor v = heads(all.narrow(2, qw + kw, kw), b, localKv);
      boolean causal = true;
      if (cache != null) {
        causal = cache.causal(q.size(2));
        Tensor[] kv = cache.append(index, k, v);
        k = kv[0];
        v = kv[1];
      }
      int rep = localHeads / localKv;
      if (rep > 1) { // grouped-query attention: key/value head j serves query heads j·rep … j·rep + rep − 1
        k = torch.repeat_interleave(k, rep, new LongOptional(1), new LongOptional());
        v = torch.repeat_interleave(v, rep, new LongOptional(1), new LongOptional());
      }
      Tensor att = scaled_dot_product_attention(q, k, v, new TensorOptional(), 0.0, causal, new DoubleOptional(), false);
      x = x.add(o.forward(att.transpose(1, 2).reshape(b, -1, qw)));
      Tensor gu = gateUp.forward(postNorm.forward(x));
      long fw = gu.size(2) / 2;
      return x.add(down.forward(silu(gu.narrow(2, 0, fw)).mul(gu.narrow(2, fw, fw))));
    }

    private Tensor heads(Tensor y, long b, long n) {
      return y.view(b, -1, n, cfg.headDim()).transpose(1, 2);
    }
  }

  /** Embedding on the first virtual stage; the last virtual stage ends with the final RMSNorm. */
  @Override
  public Tensor forwardChunk(int chunk, Tensor input) {
    return forward(chunk, input, null);
  }

  private Tensor forward(int chunk, Tensor input, KvCache cache) {
    int k = partition.virtualStage(stage, chunk);
    Tensor x = k == 0 ? embed.forward(input) : input;
    for (Block blk : chunks.get(chunk)) x = blk.forward(x, cache);
    return k == partition.virtualStages() - 1 ? norm.forward(x) : x;
  }

  @Override
  public Tensor headLossSum(Tensor hidden, Tensor targets) {
    if (head == null) throw new IllegalStateException("pipeline stage " + stage + " does not hold the LM head");
    return head.lossSum(hidden, targets);
  }

  @Override
  public Tensor lossSum(Tensor tokens, Tensor targets) {
    requireWhole();
    return headLossSum(forwardChunk(0, tokens), targets);
  }

  @Override
  public Tensor logits(Tensor tokens, KvCache cache) {
    requireWhole();
    Tensor h = forward(0, tokens, cache);
    if (cache != null) cache.advance(tokens.size(1));
    return head.logits(h);
  }

  private void requireWhole() {
    if (partition.virtualStages() != 1) throw new IllegalStateException("this Llama is split into pipeline stages; run the stages");
  }

  @Override public KvCache newCache() { return new KvCache(cfg.layers()); }
  @Override public int vocabSize() { return cfg.vocab(); }
  @Override public LayerPartition partition() { return partition; }
  @Override public long[] activationShape(int microBatchSize, int seqPerRank) { return new long[] {microBatchSize, seqPerRank, cfg.hidden()}; }
  @Override public Parameters parameters() { return layers.parameters(); }
  @Override public Layers layers() { return layers; }
  @Override public double trainingFlopsPerToken() { return cfg.trainingFlopsPerToken(); }
  public LlamaConfig config() { return cfg; }
}
