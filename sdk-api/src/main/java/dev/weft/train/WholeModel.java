package dev.weft.train;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.error.WeftException;
import dev.weft.models.LanguageModel;
import dev.weft.models.hf.PretrainedWeights;
import dev.weft.plan.SpecCheck;
import dev.weft.spec.SpecIO;
import dev.weft.spec.SpecOverrides;
import dev.weft.spec.TrainObjective;
import dev.weft.spec.TrainingSpec;
import java.util.List;
import java.util.Map;
import org.bytedeco.pytorch.Tensor;

/** A trained model rebuilt whole in one process from its whole weights, whatever layout trained it. */
public final class WholeModel {
  private WholeModel() {}

  /** The trained spec on one process: no mesh, no ZeRO, one micro-batch, and no training data needed. */
  public static TrainingSpec spec(TrainingSpec trained) {
    ObjectNode tree = SpecIO.toTree(trained);
    set(tree, "parallel.dp", 1); set(tree, "parallel.tp", 1); set(tree, "parallel.pp", 1);
    set(tree, "parallel.zero", 0); set(tree, "parallel.microBatches", 1); set(tree, "parallel.stages", List.of());
    set(tree, "train.globalBatch", 1); set(tree, "train.recompute", false); set(tree, "train.evalEvery", 0);
    // the training data need not exist here: the model is built from the weights alone
    set(tree, "data.source", dev.weft.data.BuiltinSources.None.NAME); set(tree, "data.sources", List.of()); set(tree, "data.validation", 0);
    // nor its objective's: a DPO or GRPO model is rebuilt as any language model (their checks want pairs or prompts)
    set(tree, "train.objective", TrainObjective.LM.spelling()); set(tree, "data.eval", "");
    return SpecCheck.validate(SpecIO.bind(tree));
  }

  /** {@code spec}'s whole model holding {@code weights}, by parameter name. */
  public static LanguageModel withWeights(TrainingSpec spec, Map<String, Tensor> weights) {
    LanguageModel m = ModelBuilder.whole(spec);
    // a LoRA model's base came from model.pretrained (or the seed) when it was built; the weights hold at least its adapters
    var params = spec.train().lora().enabled() ? m.parameters().trainable() : m.parameters().list();
    PretrainedWeights.copyInto(params, (name, shape) -> {
      Tensor t = weights.get(name);
      if (t == null) throw new WeftException("the weights have no tensor '" + name + "' that " + spec.model().factory() + " needs");
      return t;
    }, "MODEL");
    return m;
  }

  private static void set(ObjectNode tree, String path, Object value) {
    SpecOverrides.set(tree, path, SpecIO.yamlMapper().valueToTree(value));
  }
}
