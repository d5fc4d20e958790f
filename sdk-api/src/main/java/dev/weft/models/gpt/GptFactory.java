package dev.weft.models.gpt;

import dev.weft.models.LanguageModel;
import dev.weft.models.ModelContext;
import dev.weft.models.ModelFactory;
import dev.weft.models.Layers;
import dev.weft.models.layers.DenseLayers;
import dev.weft.parallel.data.Zero3Layers;
import dev.weft.parallel.pipeline.LayerPartition;
import dev.weft.parallel.tensor.TensorParallelLayers;
import dev.weft.parallel.tensor.TpOps;
import dev.weft.data.DataSources;
import dev.weft.spec.SpecException;
import dev.weft.spec.TrainingSpec;

/** {@code model.factory: gpt} — the reference decoder-only transformer. */
public final class GptFactory implements ModelFactory {
  @Override public String name() { return "gpt"; }

  @Override
  public void validate(TrainingSpec spec) {
    GptConfig c = GptConfig.from(spec.model().config(), spec.data().seqLen());
    if (c.hidden() % c.heads() != 0) {
      throw new SpecException("model.config.heads", c.heads() + " does not divide hidden=" + c.hidden() + "; pick a divisor of " + c.hidden());
    }
    int tp = spec.parallel().tp();
    if (tp > 1) {
      divides(tp, c.heads(), "model.config.heads", "attention heads");
      divides(tp, c.hidden(), "model.config.hidden", "hidden size");
      divides(tp, c.mlpHidden(), "model.config.mlpRatio", "MLP size (hidden × mlpRatio = " + c.mlpHidden() + ")");
      divides(tp, c.vocab(), "model.config.vocab", "vocabulary");
      if (spec.parallel().sequenceParallel() && spec.data().seqLen() % tp != 0) {
        throw new SpecException("parallel.tp", "tp=" + tp + " does not divide data.seqLen=" + spec.data().seqLen()
            + ", which sequence parallelism splits; use a seqLen that is a multiple of " + tp);
      }
    }
    partition(spec, c);
    long dataVocab = DataSources.vocabSize(spec.data());
    if (c.vocab() < dataVocab) {
      throw new SpecException("model.config.vocab", c.vocab() + " is below the data's vocabulary of " + dataVocab
          + " (data.source " + spec.data().mix().get(0).source() + (spec.data().mix().size() > 1 ? ", ..." : "")
          + "); use at least " + dataVocab);
    }
  }

  private static void divides(int tp, int n, String field, String what) {
    if (n % tp != 0) {
      throw new SpecException("parallel.tp", "tp=" + tp + " does not divide the " + what + " " + n + " (" + field
          + "); use a tp that divides " + n);
    }
  }

  @Override
  public LanguageModel create(TrainingSpec spec, ModelContext ctx) {
    GptConfig c = GptConfig.from(spec.model().config(), spec.data().seqLen());
    Layers layers = ctx.tpSize() == 1 ? new DenseLayers(ctx.seed())
        : new TensorParallelLayers(ctx.seed(), new TpOps(ctx.tp()), spec.parallel().sequenceParallel());
    Layers outer = spec.parallel().zero() == 3 ? new Zero3Layers(layers) : layers;
    return new Gpt(c, outer, partition(spec, c), ctx.ppRank());
  }

  /** How the layers split over the pipeline: as listed in parallel.stages, or evenly. */
  public static LayerPartition partition(TrainingSpec spec, GptConfig c) {
    var p = spec.parallel();
    int chunks = p.pp() > 1 ? p.chunksPerStage() : 1;
    try {
      return p.stages().isEmpty() ? LayerPartition.even(c.layers(), p.pp(), chunks)
          : new LayerPartition(c.layers(), p.pp(), chunks, p.stages());
    } catch (IllegalArgumentException e) {
      throw new SpecException(p.stages().isEmpty() ? "parallel.pp" : "parallel.stages", e.getMessage());
    }
  }
}
