package dev.weft.models.hf;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.models.ModelFactory;
import dev.weft.spec.SpecException;
import dev.weft.spec.TrainingSpec;
import java.util.Map;
import org.bytedeco.pytorch.Tensor;

/**
 * How a model factory's parameters correspond to a Hugging Face checkpoint of the same
 * architecture. A {@link dev.weft.models.ModelFactory} that implements it can start from
 * {@code model.pretrained} and be exported with {@code weft checkpoint export --format hf}.
 */
public interface HuggingFaceFormat {
  /** The {@code model_type} of config.json this factory reads and writes ({@code llama}, {@code gpt2}). */
  String modelType();

  /** The whole (unsplit) tensor for this model's parameter {@code name} of {@code shape}, read from {@code hf}. */
  Tensor read(String name, long[] shape, HfCheckpoint hf);

  /** This model's whole tensors (by parameter name) → Hugging Face tensors (by HF name), in the order to write. */
  Map<String, Tensor> toHf(Map<String, Tensor> weights, TrainingSpec spec);

  /** config.json of the exported model. */
  ObjectNode hfConfig(TrainingSpec spec);

  /** The factory's Hugging Face mapping, or a spec error saying it has none. */
  static HuggingFaceFormat of(ModelFactory f) {
    if (f instanceof HuggingFaceFormat hf) return hf;
    throw new SpecException("model.pretrained", "model.factory=" + f.name() + " cannot read Hugging Face weights;"
        + " use llama, qwen2, qwen3, mistral or gpt, or implement dev.weft.models.hf.HuggingFaceFormat in the factory");
  }

  /** The registered factory that reads config.json's {@code model_type}. */
  static ModelFactory factoryFor(String modelType, String field) {
    java.util.List<String> known = new java.util.ArrayList<>();
    for (ModelFactory f : java.util.ServiceLoader.load(ModelFactory.class)) {
      if (f instanceof HuggingFaceFormat hf) {
        if (hf.modelType().equals(modelType)) return f;
        known.add(hf.modelType());
      }
    }
    throw new SpecException(field, "config.json says model_type '" + modelType + "'; Weft reads " + known);
  }
}
