package dev.weft.spec;

import java.util.Map;

/**
 * Which model to build and with what settings. {@code factory} is a short name registered through
 * {@code dev.weft.models.ModelFactory} (for example {@code gpt}) or a fully qualified class name, so
 * every worker, wherever it runs, can construct the same model. {@code pretrained} is empty or a
 * Hugging Face model directory (config.json and model.safetensors, or shards with
 * model.safetensors.index.json) whose sizes and weights the model starts from.
 */
public record ModelSpec(String factory, Map<String, Object> config, String pretrained) {
  public ModelSpec {
    config = config == null ? Map.of() : Map.copyOf(config);
    pretrained = pretrained == null ? "" : pretrained;
  }

  public ModelSpec(String factory, Map<String, Object> config) { this(factory, config, ""); }

  public boolean hasPretrained() { return !pretrained.isBlank(); }
}
