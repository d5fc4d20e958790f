package dev.weft.models.lora;

import static org.bytedeco.pytorch.global.torch.createCPUGenerator;

import dev.weft.models.Init;
import dev.weft.models.Parameters.Param;
import org.bytedeco.pytorch.Generator;
import org.bytedeco.pytorch.GeneratorOptional;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/** The adapters' starting values, drawn whole from a generator seeded by (run seed, name) like every weight. */
final class LoraInit {
  private LoraInit() {}

  /**
   * A [rank, in] for the module {@code name}: PEFT's kaiming-uniform with a = √5, which is U(−1/√in, 1/√in).
   */
  static Tensor a(long seed, String name, int rank, long in) {
    Generator g = createCPUGenerator(Init.seedFor(seed, name + ".lora_A.weight") & Long.MAX_VALUE);
    double bound = 1.0 / Math.sqrt(in);
    return torch.empty(rank, in).uniform_(-bound, bound, new GeneratorOptional(g));
  }

  /** Sets this rank's slice of {@code p} from the whole tensor {@code full}. */
  static void fill(Param p, Tensor full) {
    Tensor mine = p.isSharded() ? Init.slice(full, p.shardDim(), p.shardIndex(), p.shardCount()) : full;
    try (NoGradGuard ng = new NoGradGuard()) {
      p.tensor().copy_(mine);
    }
  }

  static void zero(Param p) {
    try (NoGradGuard ng = new NoGradGuard()) {
      p.tensor().zero_();
    }
  }
}
