package dev.weft.launch;

import dev.weft.plan.SpecCheck;
import dev.weft.spec.SpecIO;
import dev.weft.spec.TrainingSpec;
import dev.weft.train.Optimizers;
import dev.weft.util.NativeCache;
import java.nio.file.Path;
import java.util.List;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.LinearImpl;
import org.bytedeco.pytorch.Optimizer;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a warm standby does before it is needed: load libtorch, parse and check the run's spec (spec, data-source
 * and model-factory classes), and run one tiny forward, backward and optimizer step (libtorch's and the presets'
 * classes and kernels). No port, no store, no file written.
 */
public final class Warmup {
  private static final Logger log = LoggerFactory.getLogger(Warmup.class);

  private Warmup() {}

  /** Seconds it took. A spec that fails here is left for the worker to report with its real overrides. */
  public static double run(Path specFile) {
    long t0 = System.nanoTime();
    NativeCache.load();
    TrainingSpec spec = null;
    try {
      spec = SpecCheck.validate(SpecIO.read(specFile, List.of()));
    } catch (RuntimeException e) {
      log.debug("standby warm-up: spec {} not checked: {}", specFile, e.getMessage());
    }
    try (PointerScope scope = new PointerScope()) {
      LinearImpl layer = new LinearImpl(8, 8);
      Optimizer opt = spec == null ? null : Optimizers.create(spec.train(), layer.parameters());
      Tensor loss = layer.forward(torch.randn(4, 8)).pow(new org.bytedeco.pytorch.Scalar(2.0)).mean();
      loss.backward();
      if (opt != null) opt.step();
    }
    return (System.nanoTime() - t0) / 1e9;
  }
}
