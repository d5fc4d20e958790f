package dev.weft.spec;

import java.util.Map;

/**
 * Which model to build and with what settings. {@code factory} is a short name registered through
 * {@code dev.weft.models.ModelFactory} (for example {@code gpt}) or a fully qualified class name, so
 * every worker, wherever it runs, can construct the same model.
 */
public record ModelSpec(String factory, Map<String, Object> config) {
  public ModelSpec {
    config = config == null ? Map.of() : Map.copyOf(config);
  }
}
