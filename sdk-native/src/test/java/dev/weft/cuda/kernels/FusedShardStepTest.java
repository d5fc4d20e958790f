package dev.weft.cuda.kernels;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.comm.SoloCommunicator;
import dev.weft.models.Parameters.Param;
import dev.weft.optim.ShardStep;
import dev.weft.parallel.data.ShardedOptimizer;
import dev.weft.spec.SpecIO;
import dev.weft.spec.TrainSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.Adam;
import org.bytedeco.pytorch.AdamOptions;
import org.bytedeco.pytorch.AdamW;
import org.bytedeco.pytorch.AdamWOptions;
import org.bytedeco.pytorch.Optimizer;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The sharded optimizer's CUDA step path (flat shards through {@link FusedShardStep} → {@link TensorAdamW}) run here
 * with CPU tensors, so the fused kernel's C++ reference does the update: the same flat-shard code the CUDA backend
 * uses, checked against libtorch's own AdamW/Adam over the same parameters and gradients. (The kernel itself is
 * checked against this reference on a GPU by the GPU check.)
 */
class FusedShardStepTest {
  private static final long[][] SHAPES = {{7, 5}, {13}, {3, 4, 2}, {1}};
  private static final int STEPS = 6;

  @ParameterizedTest(name = "{0} zero={1} wd={2}")
  @CsvSource({"adamw, 0, 0.1", "adamw, 1, 0.1", "adamw, 2, 0.0", "adam, 0, 0.05", "adam, 3, 0.05"})
  void flatShardsThroughTheFusedKernelMatchLibtorch(String optimizer, int zero, double wd) {
    // libtorch's defaults for betas and eps (the presets do not let Java change betas of an options object in place)
    TrainSpec t = SpecIO.parse("train: {optimizer: " + optimizer + ", lr: 0.01, beta1: 0.9, beta2: 0.999, weightDecay: "
        + wd + "}\n").train();
    List<Tensor> fused = params(), reference = params(), plain = params();
    double lr = t.lr(); // a schedule: the kernel takes lr with every step
    int[] kernelCalls = {0};
    FusedShardStep kernel = new FusedShardStep();
    ShardStep counted = (a, p, g, m, v) -> {
      kernelCalls[0]++;
      kernel.adam(a, p, g, m, v);
    };
    try (kernel; ShardedOptimizer viaKernel = sharded(zero, fused, t, counted);
         ShardedOptimizer viaLibtorchPasses = sharded(zero, plain, t, ShardStep.LIBTORCH)) {
      Optimizer torchAdam = libtorchAdam(t, reference);
      for (int step = 0; step < STEPS; step++) {
        List<Tensor> targets = targets(step);
        train(viaKernel, fused, targets, lr);
        train(viaLibtorchPasses, plain, targets, lr);
        try (PointerScope scope = new PointerScope()) {
          torchAdam.zero_grad();
          loss(reference, targets).backward();
          torchAdam.step();
        }
      }
      if (zero == 3) {
        viaKernel.gatherAll();
        viaLibtorchPasses.gatherAll();
      }
      for (int i = 0; i < SHAPES.length; i++) {
        float[] want = TorchData.toFloats(reference.get(i).detach());
        assertClose(TorchData.toFloats(fused.get(i).detach()), want, 2e-6, 2e-5, "fused kernel, parameter " + i);
        assertClose(TorchData.toFloats(plain.get(i).detach()), want, 1e-6, 1e-5, "libtorch passes, parameter " + i);
      }
      assertThat(changed(fused.get(0), params().get(0))).as("the step moved the parameters").isTrue();
      assertThat(kernelCalls[0]).as("one fused step per bucket shard per step").isEqualTo(STEPS * viaKernel.layout().buckets().size());
    }
  }

  @Test
  void theLearningRateOfEachStepReachesTheKernel() {
    TrainSpec t = SpecIO.parse("train: {optimizer: adamw, lr: 0.01, beta2: 0.95, weightDecay: 0.1}\n").train();
    List<Tensor> fused = params(), plain = params();
    double[] schedule = {0.01, 0.03, 0.02, 0.005};
    try (ShardedOptimizer viaKernel = sharded(1, fused, t, new FusedShardStep());
         ShardedOptimizer viaLibtorchPasses = sharded(1, plain, t, ShardStep.LIBTORCH)) {
      for (int step = 0; step < schedule.length; step++) {
        train(viaKernel, fused, targets(step), schedule[step]);
        train(viaLibtorchPasses, plain, targets(step), schedule[step]);
      }
    }
    for (int i = 0; i < SHAPES.length; i++) {
      assertClose(TorchData.toFloats(fused.get(i).detach()), TorchData.toFloats(plain.get(i).detach()), 2e-6, 2e-5,
          "parameter " + i);
    }
  }

  @ParameterizedTest(name = "zero={0}")
  @CsvSource({"0", "2", "3"})
  void unscalingGoesThroughTheMultiTensorKernelOncePerStepAndMatchesLibtorch(int zero) {
    TrainSpec t = SpecIO.parse("train: {optimizer: adamw, lr: 0.01, weightDecay: 0.1}\n").train();
    List<Tensor> fused = params(), plain = params();
    int[] unscaleCalls = {0};
    FusedShardStep kernel = new FusedShardStep();
    ShardStep counted = new ShardStep() {
      @Override public void adam(dev.weft.optim.AdamArgs a, Tensor p, Tensor g, Tensor m, Tensor v) { kernel.adam(a, p, g, m, v); }
      @Override public void unscale(List<Tensor> grads, double factor) {
        unscaleCalls[0]++;
        kernel.unscale(grads, factor);
      }
    };
    double gradScale = 1.0 / 1024 * 0.7; // fp16 loss scale 1024 and a clip factor of 0.7, as TrainingLoop passes them
    try (kernel; ShardedOptimizer viaKernel = sharded(zero, fused, t, counted);
         ShardedOptimizer viaLibtorchPasses = sharded(zero, plain, t, ShardStep.LIBTORCH)) {
      for (int step = 0; step < 4; step++) {
        train(viaKernel, fused, targets(step), 0.01, 1024, gradScale);
        train(viaLibtorchPasses, plain, targets(step), 0.01, 1024, gradScale);
      }
      if (zero == 3) {
        viaKernel.gatherAll();
        viaLibtorchPasses.gatherAll();
      }
      for (int i = 0; i < SHAPES.length; i++) {
        assertClose(TorchData.toFloats(fused.get(i).detach()), TorchData.toFloats(plain.get(i).detach()), 2e-6, 2e-5,
            "parameter " + i);
      }
    }
    assertThat(unscaleCalls[0]).as("one multi-tensor launch per step, over every bucket shard").isEqualTo(4);
  }

  @Test
  void theInfCheckFlagsANonFiniteShardAndTheStepRefusesIt() {
    try (PointerScope scope = new PointerScope(); TensorUnscale unscale = new TensorUnscale()) {
      Tensor a = org.bytedeco.pytorch.global.torch.ones(5), b = org.bytedeco.pytorch.global.torch.ones(3);
      assertThat(unscale.apply(List.of(a, b), 0.5f)).as("all finite").isFalse();
      assertThat(TorchData.toFloats(a)).containsOnly(0.5f);
      b.narrow(0, 1, 1).fill_(new org.bytedeco.pytorch.Scalar(Double.POSITIVE_INFINITY));
      assertThat(unscale.apply(List.of(a, b), 2f)).as("an inf in the second tensor").isTrue();
      try (FusedShardStep step = new FusedShardStep()) {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> step.unscale(List.of(a, b), 1.0))
            .hasMessageContaining("inf or NaN");
      }
    }
  }

  private static Optimizer libtorchAdam(TrainSpec t, List<Tensor> params) {
    TensorVector ps = new TensorVector(params.toArray(new Tensor[0]));
    if ("adamw".equals(t.optimizer())) {
      AdamWOptions o = new AdamWOptions(t.lr());
      o.weight_decay().put(t.weightDecay());
      return new AdamW(ps, o);
    }
    AdamOptions o = new AdamOptions(t.lr());
    o.weight_decay().put(t.weightDecay());
    return new Adam(ps, o);
  }

  private static ShardedOptimizer sharded(int zero, List<Tensor> tensors, TrainSpec t, ShardStep kernel) {
    List<Param> ps = new ArrayList<>();
    for (int i = 0; i < tensors.size(); i++) ps.add(new Param("p" + i, tensors.get(i), SHAPES[i], -1, 0, 1));
    // 16-element buckets: several buckets, parameters split across none (a bucket holds whole parameters)
    ShardedOptimizer opt = new ShardedOptimizer(zero, ps, new int[ps.size()], new SoloCommunicator("dp"),
        new SoloCommunicator("tp"), t, "fp32", 16, 0);
    opt.shardStep(kernel);
    return opt;
  }

  private static void train(ShardedOptimizer opt, List<Tensor> ps, List<Tensor> targets, double lr) {
    train(opt, ps, targets, lr, 1, 1.0);
  }

  /** One step of the loss multiplied by {@code lossScale}, stepped with gradients multiplied by {@code gradScale}. */
  private static void train(ShardedOptimizer opt, List<Tensor> ps, List<Tensor> targets, double lr, double lossScale,
                            double gradScale) {
    try (PointerScope scope = new PointerScope()) {
      if (opt.stage() == 3) opt.gatherAll();
      opt.beforeBackward(0, 1);
      loss(ps, targets).mul(new org.bytedeco.pytorch.Scalar(lossScale)).backward();
      opt.afterBackward(0, 1);
      opt.step(lr, gradScale);
    }
  }

  /** Sum of squared distances to per-step targets: gradients of every sign and size. */
  private static Tensor loss(List<Tensor> ps, List<Tensor> targets) {
    Tensor total = null;
    for (int i = 0; i < ps.size(); i++) {
      Tensor d = ps.get(i).sub(targets.get(i));
      Tensor l = d.mul(d).sum();
      total = total == null ? l : total.add(l);
    }
    return total;
  }

  private static List<Tensor> params() {
    SplittableRandom r = new SplittableRandom(11);
    List<Tensor> out = new ArrayList<>();
    for (long[] shape : SHAPES) out.add(TorchData.gaussian(r, (int) numel(shape), 1, false).reshape(shape).clone().requires_grad_(true));
    return out;
  }

  private static List<Tensor> targets(int step) {
    SplittableRandom r = new SplittableRandom(100 + step);
    List<Tensor> out = new ArrayList<>();
    for (long[] shape : SHAPES) out.add(TorchData.gaussian(r, (int) numel(shape), 2, false).reshape(shape));
    return out;
  }

  private static long numel(long[] shape) {
    long n = 1;
    for (long d : shape) n *= d;
    return n;
  }

  private static boolean changed(Tensor a, Tensor b) {
    float[] x = TorchData.toFloats(a.detach()), y = TorchData.toFloats(b.detach());
    for (int i = 0; i < x.length; i++) if (Math.abs(x[i] - y[i]) > 1e-3) return true;
    return false;
  }

  private static void assertClose(float[] got, float[] want, double abs, double rel, String what) {
    assertThat(got).as(what).hasSameSizeAs(want);
    for (int i = 0; i < got.length; i++) {
      assertThat((double) got[i]).as(what + " element " + i).isCloseTo(want[i],
          org.assertj.core.data.Offset.offset(abs + rel * Math.abs(want[i])));
    }
  }
}
