package dev.weft.models.hf;

import com.fasterxml.jackson.databind.node.ObjectNode;
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
}
