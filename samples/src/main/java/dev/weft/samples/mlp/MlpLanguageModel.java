package dev.weft.samples.mlp;

import static org.bytedeco.pytorch.global.torch.gelu;

import dev.weft.models.Layers;
import dev.weft.models.ModelContext;
import dev.weft.models.Parameters;
import dev.weft.models.StagedModel;
import dev.weft.models.LayerPartition;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * A small language model that is not a transformer: each position sees its token and the one
 * before it (two embeddings), then residual MLP blocks, a final LayerNorm and the output head. It is
 * written only against {@link Layers} and {@link ModelContext}: data, tensor and pipeline
 * parallelism and ZeRO-3 come from the layers the framework hands it.
 */
public final class MlpLanguageModel implements StagedModel {
  private final MlpConfig cfg;
  private final Layers layers;
  private final LayerPartition partition;
  private final int stage;
  private final Layers.Embedding token;
  private final Layers.Embedding previous;
  private final List<List<Block>> chunks = new ArrayList<>();
  private final Layers.Linear norm;
  private final Layers.LmHead head;

  public MlpLanguageModel(MlpConfig cfg, ModelContext ctx) {
    this.cfg = cfg;
    this.layers = ctx.layers();
    this.partition = ctx.partition(cfg.layers());
    this.stage = ctx.ppRank();
    boolean first = partition.virtualStage(stage, 0) == 0;
    boolean last = partition.virtualStage(stage, partition.chunks() - 1) == partition.virtualStages() - 1;
    token = first ? layers.embedding("token", cfg.vocab(), cfg.hidden(), 0.02) : null;
    previous = first ? layers.embedding("previous", cfg.vocab(), cfg.hidden(), 0.02) : null;
    for (int c = 0; c < partition.chunks(); c++) {
      int k = partition.virtualStage(stage, c);
      List<Block> blocks = new ArrayList<>();
      for (int i = partition.start(k); i < partition.end(k); i++) blocks.add(new Block("block" + i));
      chunks.add(blocks);
    }
    norm = last ? layers.layerNorm("norm", cfg.hidden()) : null;
    head = last ? layers.lmHead("head", cfg.hidden(), cfg.vocab(), 0.02) : null;
  }

  private final class Block {
    final Layers.Linear ln, up, down;

    Block(String name) {
      long h = cfg.hidden(), f = (long) cfg.hidden() * cfg.expansion();
      ln = layers.layerNorm(name + ".ln", h);
      up = layers.column(name + ".up", h, f, 0.02);
      down = layers.row(name + ".down", f, h, 0.02 / Math.sqrt(2.0 * cfg.layers()));
    }

    Tensor forward(Tensor x) { return x.add(down.forward(gelu(up.forward(ln.forward(x))))); }
  }

  @Override
  public Tensor forwardChunk(int chunk, Tensor input) {
    int k = partition.virtualStage(stage, chunk);
    Tensor x = input;
    if (k == 0) {
      // token t-1 for each position t (token 0 before the first)
      Tensor before = torch.constant_pad_nd(input.narrow(1, 0, input.size(1) - 1), new long[] {1, 0}, new Scalar(0));
      x = token.forward(input).add(previous.forward(before));
    }
    for (Block b : chunks.get(chunk)) x = b.forward(x);
    return k == partition.virtualStages() - 1 ? norm.forward(x) : x;
  }

  @Override
  public Tensor headLossSum(Tensor hidden, Tensor targets) { return head.lossSum(hidden, targets); }

  @Override
  public Tensor lossSum(Tensor tokens, Tensor targets) { return headLossSum(forwardChunk(0, tokens), targets); }

  @Override public LayerPartition partition() { return partition; }
  @Override public long[] activationShape(int microBatchSize, int seqPerRank) { return new long[] {microBatchSize, seqPerRank, cfg.hidden()}; }
  @Override public Parameters parameters() { return layers.parameters(); }
  @Override public Layers layers() { return layers; }

  @Override
  public double trainingFlopsPerToken() {
    double h = cfg.hidden();
    return 6 * (cfg.layers() * 2 * h * h * cfg.expansion() + cfg.vocab() * h);
  }
}
