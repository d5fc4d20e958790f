package dev.weft.models.gpt;

import static org.bytedeco.pytorch.global.torch.arange;
import static org.bytedeco.pytorch.global.torch.gelu;
import static org.bytedeco.pytorch.global.torch.scaled_dot_product_attention;

import dev.weft.data.PackedDocuments;
import dev.weft.models.AttentionMask;
import dev.weft.models.CausalLm;
import dev.weft.models.KvCache;
import dev.weft.models.StagedModel;
import dev.weft.models.Layers;
import dev.weft.models.Parameters;
import dev.weft.models.LayerPartition;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.pytorch.DoubleOptional;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptional;

/**
 * Decoder-only GPT: token + position embeddings, pre-LN blocks of causal self-attention and MLP,
 * final LayerNorm, LM head. Knows nothing of parallelism: it asks {@link Layers} for column and row
 * layers, and attention works on however many heads this rank holds.
 */
public final class Gpt implements StagedModel, CausalLm {
  private final GptConfig cfg;
  private final Layers layers;
  private final LayerPartition partition;
  private final int stage;
  private final Layers.Embedding tok;
  private final Layers.Embedding pos;
  private final List<List<Block>> chunks = new ArrayList<>();
  private final Layers.Linear lnF;
  private final Layers.LmHead head;
  private final int localHeads;
  private final boolean tanhGelu;

  /** The whole model on one pipeline stage. */
  public Gpt(GptConfig cfg, Layers layers) {
    this(cfg, layers, LayerPartition.even(cfg.layers(), 1, 1), 0);
  }

  /**
   * The part of the model pipeline rank {@code stage} holds: the layers of each of its chunks
   * (virtual stages), the embeddings on the first virtual stage, final norm and head on the last.
   */
  public Gpt(GptConfig cfg, Layers layers, LayerPartition partition, int stage) {
    this.cfg = cfg;
    this.layers = layers;
    this.partition = partition;
    this.stage = stage;
    this.localHeads = cfg.heads() / layers.splits();
    this.tanhGelu = "gelu_tanh".equals(cfg.activation());
    double std = 0.02, projStd = 0.02 / Math.sqrt(2.0 * cfg.layers());
    boolean first = partition.virtualStage(stage, 0) == 0;
    boolean last = partition.virtualStage(stage, partition.chunks() - 1) == partition.virtualStages() - 1;
    tok = first ? layers.embedding("tok_emb", cfg.vocab(), cfg.hidden(), std) : null;
    pos = first ? layers.positionEmbedding("pos_emb", cfg.seqLen(), cfg.hidden(), std) : null;
    for (int c = 0; c < partition.chunks(); c++) {
      int k = partition.virtualStage(stage, c);
      List<Block> blocks = new ArrayList<>();
      for (int i = partition.start(k); i < partition.end(k); i++) blocks.add(new Block(i, std, projStd));
      chunks.add(blocks);
    }
    lnF = last ? layers.layerNorm("ln_f", cfg.hidden()) : null;
    head = last ? layers.lmHead("lm_head", cfg.hidden(), cfg.vocab(), std) : null;
  }

  private final class Block {
    final int index;
    final Layers.Linear ln1, proj, ln2, fc1, fc2;
    final Layers.Columns qkv;

    Block(int index, double std, double projStd) {
      this.index = index;
      String n = "blocks." + index;
      long h = cfg.hidden(), f = cfg.mlpHidden();
      ln1 = layers.layerNorm(n + ".ln_1", h);
      qkv = layers.columnParts(List.of(n + ".attn.q", n + ".attn.k", n + ".attn.v"), h, new long[] {h, h, h}, std, true);
      proj = layers.row(n + ".attn.proj", h, h, projStd);
      ln2 = layers.layerNorm(n + ".ln_2", h);
      fc1 = layers.column(n + ".mlp.fc1", h, f, std);
      fc2 = layers.row(n + ".mlp.fc2", f, h, projStd);
    }

    Tensor forward(Tensor x, KvCache cache, PackedDocuments docs) {
      // x may hold only part of the sequence (sequence parallelism); q, k, v always see all of it
      long b = x.size(0), d = cfg.headDim();
      Tensor a = ln1.forward(x);
      Tensor[] qkvs = qkv.forward(a);
      Tensor qh = heads(qkvs[0], b, d), kh = heads(qkvs[1], b, d), vh = heads(qkvs[2], b, d);
      boolean causal = true;
      if (cache != null) {
        causal = cache.causal(qh.size(2));
        Tensor[] kv = cache.append(index, kh, vh);
        kh = kv[0];
        vh = kv[1];
      }
      Tensor att = docs != null ? layers.attention(qh, kh, vh, AttentionMask.CAUSAL.withDocuments(docs.ids()))
          : scaled_dot_product_attention(qh, kh, vh, new TensorOptional(), 0.0, causal, new DoubleOptional(), false);
      x = x.add(proj.forward(att.transpose(1, 2).reshape(b, -1, localHeads * d)));
      Tensor f = fc1.forward(ln2.forward(x));
      return x.add(fc2.forward(tanhGelu ? gelu(f, "tanh") : gelu(f)));
    }

    private Tensor heads(Tensor y, long b, long d) {
      return y.view(b, -1, localHeads, d).transpose(1, 2);
    }
  }

  /** Embeddings on the first virtual stage; the last virtual stage ends with the final LayerNorm. */
  @Override
  public Tensor forwardChunk(int chunk, Tensor input) { return forward(chunk, input, null, null); }

  /** Packed samples: positions restart and attention stays inside each document. */
  @Override
  public Tensor forwardChunk(int chunk, Tensor input, PackedDocuments documents) { return forward(chunk, input, null, documents); }

  private Tensor forward(int chunk, Tensor input, KvCache cache, PackedDocuments docs) {
    int k = partition.virtualStage(stage, chunk);
    Tensor x = input;
    long start = cache == null ? 0 : cache.length();
    if (k == 0) x = tok.forward(input).add(pos.forward(docs != null ? docs.positions() : arange(new Scalar(start),
        new Scalar(start + input.size(1)), new org.bytedeco.pytorch.TensorOptions(org.bytedeco.pytorch.global.torch.ScalarType.Long)
            .device(new org.bytedeco.pytorch.DeviceOptional(input.device())))));
    for (Block blk : chunks.get(chunk)) x = blk.forward(x, cache, docs);
    return k == partition.virtualStages() - 1 ? lnF.forward(x) : x;
  }

  /** Logits with a KV cache; positions beyond data.seqLen have no position embedding, so prompt + new tokens must fit in it. */
  @Override
  public Tensor logits(Tensor tokens, KvCache cache) {
    if (partition.virtualStages() != 1) throw new IllegalStateException("this GPT is split into pipeline stages; run the stages");
    long end = (cache == null ? 0 : cache.length()) + tokens.size(1);
    if (end > cfg.seqLen()) throw new IllegalArgumentException("position " + end + " is beyond the GPT's context of " + cfg.seqLen() + " tokens");
    Tensor h = forward(0, tokens, cache, null);
    if (cache != null) cache.advance(tokens.size(1));
    return head.logits(h);
  }

  @Override public KvCache newCache() { return new KvCache(cfg.layers()); }
  @Override public int vocabSize() { return cfg.vocab(); }

  @Override
  public Tensor headLossSum(Tensor hidden, Tensor targets) {
    if (head == null) throw new IllegalStateException("pipeline stage " + stage + " does not hold the LM head");
    return head.lossSum(hidden, targets);
  }

  @Override
  public Tensor lossSum(Tensor tokens, Tensor targets) {
    if (partition.virtualStages() != 1) throw new IllegalStateException("loss() runs the whole model; this one is split into stages");
    return headLossSum(forwardChunk(0, tokens), targets);
  }

  @Override
  public Tensor lossSum(Tensor tokens, Tensor targets, PackedDocuments documents) {
    if (partition.virtualStages() != 1) throw new IllegalStateException("loss() runs the whole model; this one is split into stages");
    return headLossSum(forwardChunk(0, tokens, documents), targets);
  }

  @Override public LayerPartition partition() { return partition; }
  @Override public long[] activationShape(int microBatchSize, int seqPerRank) { return new long[] {microBatchSize, seqPerRank, cfg.hidden()}; }

  @Override public Parameters parameters() { return layers.parameters(); }
  @Override public Layers layers() { return layers; }
  @Override public double trainingFlopsPerToken() { return cfg.trainingFlopsPerToken(); }
  public GptConfig config() { return cfg; }
}
