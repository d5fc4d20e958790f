package dev.weft.models.lora;

import static org.bytedeco.pytorch.global.torch.createCPUGenerator;

import dev.weft.models.Init;
import org.bytedeco.pytorch.Generator;
import org.bytedeco.pytorch.GeneratorOptional;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * Dropout on the adapters' input while training (gradients on). The masks come from this model's own
 * generator, seeded from the run seed, so the tensor-parallel ranks, which run the same forward passes,
 * draw the same masks for the input they all hold, and no rank touches the process-wide generator.
 */
final class LoraDropout {
  private final double p;
  private final Generator generator;

  LoraDropout(double p, long seed) {
    this.p = p;
    this.generator = p > 0 ? createCPUGenerator(Init.seedFor(seed, "lora.dropout") & Long.MAX_VALUE) : null;
  }

  Tensor apply(Tensor x) {
    if (p == 0 || !org.bytedeco.pytorch.GradMode.is_enabled()) return x;
    Tensor keep = torch.empty(x.sizes().vec().get()).bernoulli_(1 - p, new GeneratorOptional(generator));
    return x.mul(keep.to(x.device(), x.scalar_type()).div_(new Scalar(1 - p)));
  }
}
