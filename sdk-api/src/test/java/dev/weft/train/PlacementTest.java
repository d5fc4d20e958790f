package dev.weft.train;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.Trainer;
import dev.weft.comm.RankDevice;
import dev.weft.comm.SoloCommunicator;
import dev.weft.data.Batches;
import dev.weft.data.DistributedSampler;
import dev.weft.data.TokenSource;
import dev.weft.models.Parameters.Param;
import dev.weft.parallel.data.ShardedOptimizer;
import dev.weft.spec.TrainingSpec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.MemoryFormatOptional;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptions;
import org.bytedeco.pytorch.global.torch;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Everything a rank trains with lives on its device. libtorch's {@code meta} device stands in for CUDA here: tensors
 * with shapes and no storage, so a buffer allocated on the CPU where the parameters' device was meant shows up as
 * misplaced (a CPU-only run could not tell the two apart).
 */
class PlacementTest {
  private static final RankDevice META = new RankDevice("meta", -1);

  private static TrainingSpec tiny(int zero) {
    return Trainer.model("gpt").set("model.config.layers", 2).set("model.config.hidden", 32).set("model.config.heads", 2)
        .seqLen(16).globalBatch(4).steps(2).seed(5).zero(zero).toSpec();
  }

  @ParameterizedTest(name = "zero={0}")
  @ValueSource(ints = {0, 1, 2, 3})
  void flatBuffersGradientsAndMomentsFollowTheParametersDevice(int zero) {
    TrainingSpec spec = tiny(zero);
    // the model's parameter shapes, as leaves on meta (set_data cannot move a CPU tensor to meta, only to CUDA)
    List<Param> params = new java.util.ArrayList<>();
    for (Param p : ModelBuilder.build(spec, null, 0).parameters().list()) {
      Tensor t = torch.empty(p.localShape(), new TensorOptions(META.torch()), new MemoryFormatOptional()).requires_grad_(true);
      params.add(new Param(p.name(), t, p.globalShape(), p.shardDim(), p.shardIndex(), p.shardCount()));
    }
    int[] units = new int[params.size()];
    for (int i = 0; i < units.length; i++) units[i] = i / 4; // several ZeRO-3 gather units
    try (ShardedOptimizer opt = new ShardedOptimizer(zero, params, units, new SoloCommunicator("dp"), new SoloCommunicator("tp"),
        spec.train(), "fp32", 1 << 12, 0)) {
      assertThat(opt.buffers()).as("flat parameters, gradients, exp_avg, exp_avg_sq").isNotEmpty();
      assertThat(Placement.misplaced(opt.buffers(), META)).as("the optimizer's buffers").isEmpty();
      try (PointerScope scope = new PointerScope()) {
        opt.gatherAll();
        assertThat(Placement.misplaced(named(params), META)).as("parameters (gathered under ZeRO-3)").isEmpty();
        opt.beforeBackward(0, 1);
        Tensor loss = null;
        for (Param p : params) loss = loss == null ? p.tensor().mul(p.tensor()).sum() : loss.add(p.tensor().mul(p.tensor()).sum());
        loss.backward();
        assertThat(Placement.misplaced(named(params), META)).as("parameters and their gradients after backward").isEmpty();
        opt.afterBackward(0, 1);
        opt.releaseAll();
        opt.step(1e-3, 0.5); // unscale, AdamW passes: on meta, shapes only
        assertThat(Placement.misplaced(opt.buffers(), META)).as("buffers after the gradients moved in and a step").isEmpty();
      }
    }
  }

  @Test
  void batchesArePlacedOnTheRanksDevice() {
    TrainingSpec spec = tiny(0);
    try (PointerScope scope = new PointerScope()) {
      StepData data = new StepData(TokenSource.of(spec.data(), 5), new DistributedSampler(4, 1, 0, 1), 16, META);
      Batches.Batch b = data.place(data.hostBatches(1)).get(0);
      assertThat(Placement.misplaced(Map.of("tokens", b.tokens(), "targets", b.targets()), META)).isEmpty();
      assertThat(b.tokens().sizes().vec().get()).containsExactly(4, 16);
      StepData onCpu = new StepData(TokenSource.of(spec.data(), 5), new DistributedSampler(4, 1, 0, 1), 16, RankDevice.CPU);
      Batches.Batch host = onCpu.place(onCpu.hostBatches(1)).get(0);
      assertThat(host.tokens().is_cpu()).isTrue();
    }
  }

  @Test
  void movingToTheCpuKeepsEveryParameterObjectAndValue() {
    List<Param> params = ModelBuilder.build(tiny(0), null, 0).parameters().list();
    Tensor first = params.get(0).tensor();
    float before = dev.weft.util.Tensors.toFloats(first)[0];
    Placement.moveParameters(params, RankDevice.CPU);
    assertThat(params.get(0).tensor()).isSameAs(first);
    assertThat(dev.weft.util.Tensors.toFloats(first)[0]).isEqualTo(before);
    assertThat(Placement.misplaced(named(params), RankDevice.CPU)).isEmpty();
  }

  @Test
  void theAuditNamesATensorLeftOnTheCpu() {
    try (PointerScope scope = new PointerScope()) {
      Map<String, Tensor> named = new LinkedHashMap<>();
      named.put("w", META.place(torch.ones(4)));
      named.put("planted exp_avg", torch.zeros(4));
      assertThat(Placement.misplaced(named, META)).containsExactly("planted exp_avg on cpu");
      Tensor p = torch.ones(2).requires_grad_(true);
      p.sum().backward();
      assertThat(Placement.misplaced(Map.of("p", p), RankDevice.CPU)).isEmpty();
      assertThat(Placement.misplaced(Map.of("p", p), META)).containsExactly("p on cpu", "p.grad on cpu");
    }
  }

  @Test
  void anOptimizerOverCpuParametersIsCaughtWhenTheRanksDeviceIsElsewhere() {
    TrainingSpec spec = tiny(1);
    List<Param> params = ModelBuilder.build(spec, null, 0).parameters().list(); // never moved
    try (ShardedOptimizer opt = new ShardedOptimizer(1, params, new int[params.size()], new SoloCommunicator("dp"),
        new SoloCommunicator("tp"), spec.train(), "fp32", 1 << 12, 0)) {
      assertThat(Placement.misplaced(opt.buffers(), META)).isNotEmpty().allMatch(s -> s.endsWith(" on cpu"));
    }
  }

  private static Map<String, Tensor> named(List<Param> params) {
    Map<String, Tensor> out = new LinkedHashMap<>();
    for (Param p : params) out.put(p.name(), p.tensor());
    return out;
  }
}
