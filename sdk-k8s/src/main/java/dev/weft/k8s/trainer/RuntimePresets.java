package dev.weft.k8s.trainer;

import dev.weft.k8s.render.Rendered;
import dev.weft.k8s.spec.K8sSpec;
import dev.weft.k8s.spec.K8sSpecLoader;
import dev.weft.k8s.yaml.Manifest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Ready fine-tuning runtimes named like Kubeflow's own ({@code torchtune-llama3.2-1b} → {@code weft-llama3.2-1b}):
 * LoRA SFT on chat data, multi-node. Each is a spec under this package's resources, rendered by {@link RuntimeRenderer}.
 */
public final class RuntimePresets {
  public static final List<String> NAMES = List.of("weft-llama3.2-1b", "weft-llama3.2-3b", "weft-qwen2.5-1.5b");

  private RuntimePresets() {}

  /** The preset's spec with {@code overrides} (e.g. deployment.image=...) applied. */
  public static K8sSpec spec(String name, List<String> overrides) {
    String file = name + ".yaml";
    try (InputStream in = RuntimePresets.class.getResourceAsStream(file)) {
      if (in == null || !NAMES.contains(name)) {
        throw new dev.weft.spec.SpecException("--preset", "'" + name + "' is not a Weft runtime; use one of " + String.join(", ", NAMES));
      }
      return K8sSpecLoader.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), overrides);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The preset's runtimes, named as the preset (its spec's name has '-' for '.': spec names are DNS labels). */
  public static Rendered render(String name, List<String> overrides) { return RuntimeRenderer.render(spec(name, overrides), name, RuntimeInputs.FINE_TUNING); }

  /** Every preset's ClusterTrainingRuntime (the namespaced copies are left out: one install serves the cluster). */
  public static Rendered renderAll(List<String> overrides) {
    List<Manifest> out = new ArrayList<>();
    String namespace = null;
    for (String name : NAMES) {
      Rendered r = render(name, overrides);
      namespace = r.namespace();
      out.add(r.only("ClusterTrainingRuntime"));
    }
    return new Rendered(namespace, out);
  }
}
