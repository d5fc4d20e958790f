package dev.weft.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.spec.SpecIO;
import dev.weft.spec.TrainingSpec;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a checkpoint records besides tensors: the optimizer step, the spec it was trained with (as
 * JSON), the mesh, the ZeRO stage, and an opaque {@code state} map the training loop fills
 * (global samples consumed, RNG seed/state, loss scaler, LR-schedule step, ...). {@code state} must
 * hold JSON values only (strings, numbers, booleans, lists, maps).
 */
public record CheckpointMeta(long step, Mesh mesh, int zeroStage, JsonNode spec, Map<String, Object> state) {
  /**
   * The data-, tensor-, pipeline- and context-parallel sizes the checkpoint was saved with ({@code cp} is 1 in
   * manifests written before it existed). cp ranks hold the same slices, so a resume may change cp freely.
   */
  public record Mesh(int dp, int tp, int pp, int cp) {
    public Mesh {
      if (cp == 0) cp = 1; // absent from older manifests
    }

    public Mesh(int dp, int tp, int pp) { this(dp, tp, pp, 1); }

    public int worldSize() { return dp * tp * pp * cp; }
  }

  public CheckpointMeta {
    if (step < 0) throw new IllegalArgumentException("step " + step + " must not be negative");
    state = state == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(state));
  }

  /** Mesh and ZeRO stage taken from {@code spec}. */
  public static CheckpointMeta of(long step, TrainingSpec spec, Map<String, Object> state) {
    return new CheckpointMeta(step, new Mesh(spec.parallel().dp(), spec.parallel().tp(), spec.parallel().pp(), spec.parallel().cp()),
        spec.parallel().zero(), SpecIO.jsonMapper().valueToTree(spec), state);
  }

  /** The saved spec bound to records again (defaults filled in for fields added since). */
  public TrainingSpec trainingSpec() {
    if (spec == null || spec.isNull() || spec.isMissingNode()) throw new CheckpointException("this checkpoint holds no spec");
    return SpecIO.fromJson(spec.toString());
  }
}
