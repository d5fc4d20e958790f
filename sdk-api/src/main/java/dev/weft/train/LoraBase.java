package dev.weft.train;

import dev.weft.checkpoint.Checkpoint;
import dev.weft.models.hf.WeightsHash;
import dev.weft.spec.SpecException;
import dev.weft.spec.TrainingSpec;
import java.nio.file.Path;
import java.util.Map;

/**
 * The frozen base of a LoRA run, as its checkpoints reference it: the checkpoint holds only the adapters
 * (and their optimizer state), plus {@code model.pretrained} (in its spec) and the base weights' content
 * hash (in its state), which a resume checks against the base it is given.
 */
final class LoraBase {
  static final String HASH_KEY = "lora_base_sha256";

  private final TrainingSpec spec;
  private String hash;

  LoraBase(TrainingSpec spec) { this.spec = spec; }

  private boolean referenced() { return spec.train().lora().enabled() && spec.model().hasPretrained(); }

  /** The base's hash, computed once. */
  private String hash() {
    if (hash == null) hash = WeightsHash.of(Path.of(spec.model().pretrained()), "model.pretrained");
    return hash;
  }

  /** Adds the reference to a checkpoint's state. */
  void record(Map<String, Object> state) {
    if (referenced()) state.put(HASH_KEY, hash());
  }

  /** A checkpoint of a LoRA run resumes only onto the base it was trained on; one line otherwise. */
  void requireSame(Checkpoint c) {
    Object saved = c.manifest().state() == null ? null : c.manifest().state().get(HASH_KEY);
    if (!(saved instanceof String s)) return; // not a LoRA checkpoint over a pretrained base
    if (!spec.train().lora().enabled()) {
      throw new SpecException("train.lora.rank", c.dir() + " holds LoRA adapters only; resume it with train.lora as it was saved");
    }
    if (!spec.model().hasPretrained()) {
      throw new SpecException("model.pretrained", c.dir() + " holds LoRA adapters over a base model; give that base's directory");
    }
    WeightsHash.requireSame(Path.of(spec.model().pretrained()), s, "model.pretrained", c.dir());
    hash = s; // hashed once: later saves record the same base
  }
}
