package dev.weft.models.decoder;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.models.hf.HfCheckpoint;
import dev.weft.spec.SpecException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every tensor accounted for: before any rank starts, the checkpoint's tensor names and shapes are
 * compared with the model config.json describes. A tensor the model would not use, one it needs that
 * is missing, or a wrong shape is refused in one line naming the tensor and the config.json key that
 * decides it. A tied model may omit the head (or carry a copy, which the tie replaces, as transformers does).
 */
public final class TensorCheck {
  private static final Logger LOG = LoggerFactory.getLogger(TensorCheck.class);

  private TensorCheck() {}

  public static void require(HfCheckpoint hf, Map<String, long[]> expected, String headName, boolean tied,
                             Function<String, String> keyFor, ConfigJson config) {
    List<String> problems = new ArrayList<>();
    for (String name : hf.names()) {
      if (expected.containsKey(name) || name.endsWith(".rotary_emb.inv_freq")) continue; // frequencies come from config.json
      if (tied && name.equals(headName)) {
        LOG.info("{} is tied to the token embedding (tie_word_embeddings); the checkpoint's copy is not read", name);
        continue;
      }
      String key = keyFor.apply(name);
      problems.add(name + " is in the checkpoint but " + (config.has(key) ? "config.json's " + key + "=" + value(config, key)
          + " does not call for it" : "config.json has no " + key));
    }
    expected.forEach((name, shape) -> {
      if (!hf.has(name)) {
        String key = keyFor.apply(name);
        problems.add(name + " is not in the checkpoint, but config.json's " + key + "=" + value(config, key) + " calls for it");
      } else if (!Arrays.equals(hf.shape(name), shape)) {
        problems.add(name + " has shape " + Arrays.toString(hf.shape(name)) + " in the checkpoint but config.json's sizes"
            + " (hidden_size, intermediate_size, num_attention_heads, num_key_value_heads, head_dim, vocab_size) make it "
            + Arrays.toString(shape));
      }
    });
    if (problems.isEmpty()) return;
    throw new SpecException("model.pretrained", problems.get(0) + (problems.size() > 1 ? " (and " + (problems.size() - 1)
        + " more tensor problem(s))" : "") + "; the weights and config.json must describe the same model");
  }

  private static String value(ConfigJson c, String key) {
    JsonNode v = c.json().path(key);
    return v.isMissingNode() ? "(absent)" : v.toString();
  }
}
