package dev.weft.models.mistral;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.models.decoder.ConfigJson;
import dev.weft.models.decoder.DecoderConfig;
import dev.weft.models.decoder.DecoderFamily;
import java.util.Set;

/**
 * {@code model.factory: mistral} — Llama's decoder whose attention sees only the last
 * {@code sliding_window} tokens (null: all of them; transformers' default 4096 when a pretrained
 * config.json omits the key).
 */
public final class MistralFactory extends DecoderFamily {
  @Override public String name() { return "mistral"; }
  @Override protected String architecture() { return "MistralForCausalLM"; }
  @Override protected Set<String> extraKeys() { return Set.of("sliding_window"); }

  @Override
  protected DecoderConfig read(ConfigJson c) {
    Integer window = c.has("sliding_window") ? Integer.valueOf(c.positive("sliding_window", null))
        : c.pretrained() && !c.json().has("sliding_window") ? Integer.valueOf(4096) : null;
    return c.llamaLike().withSlidingWindow(window);
  }

  @Override
  protected void writeExtras(ObjectNode n, DecoderConfig c) {
    if (c.slidingWindow() == null) n.putNull("sliding_window");
    else n.put("sliding_window", c.slidingWindow());
  }
}
