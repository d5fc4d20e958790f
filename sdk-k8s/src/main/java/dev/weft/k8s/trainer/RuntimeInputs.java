package dev.weft.k8s.trainer;

import java.util.ArrayList;
import java.util.List;

/**
 * What a runtime's initializers fetch before the trainer starts. Their directories exist only on the cluster, so the
 * trainer is pointed at them in the pod ({@code --set}), not in the spec, which is checked here against local files.
 *
 * @param model the model initializer fetches a Hugging Face directory to {@link RuntimeRenderer#MODEL_DIR}
 * @param chatData the dataset initializer fetches chat data and tokenizes it with the model's template into
 *     {@link RuntimeRenderer#TOKENS_DIR}
 */
public record RuntimeInputs(boolean model, boolean chatData) {
  public static final RuntimeInputs NONE = new RuntimeInputs(false, false);
  public static final RuntimeInputs FINE_TUNING = new RuntimeInputs(true, true);

  /** The trainer's {@code --set} arguments that read the fetched inputs. */
  List<String> workerOverrides() {
    List<String> out = new ArrayList<>();
    if (model) out.add("model.pretrained=" + RuntimeRenderer.MODEL_DIR);
    if (chatData) out.add("data.source=" + RuntimeRenderer.TOKENS_DIR);
    return out;
  }
}
