package dev.weft.cuda.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.bytedeco.pytorch.Device;
import org.junit.jupiter.api.Test;

/** The GPU training check's optimizer comparison, run here on the CPU: the same code, the kernel's C++ reference. */
class OptimizerCheckTest {
  @Test
  void onTheCpuTheFusedReferenceAndTheLibtorchPassesMatchLibtorchAdamW() {
    List<CheckResult> results = new OptimizerCheck(new Device("cpu"), "cpu").run(4099, 4);
    assertThat(results).hasSize(3).allSatisfy(r -> assertThat(r.passed()).as(r.toString()).isTrue());
    assertThat(results.get(0).name()).contains("C++ reference");
    assertThat(results.get(2).detail()).isEqualTo("tensors on CPU, kernel on the host");
  }
}
