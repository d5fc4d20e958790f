package dev.weft.comm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.global.torch;
import org.junit.jupiter.api.Test;

/** Which device a rank trains on: LOCAL_RANK modulo the devices on CUDA, the CPU otherwise. */
class RankDeviceTest {
  @Test
  void cudaRanksTakeTheirLocalRankModuloTheDeviceCount() {
    assertThat(RankDevice.of("cuda", 0, 8)).hasToString("cuda:0");
    assertThat(RankDevice.of("cuda", 7, 8)).hasToString("cuda:7");
    assertThat(RankDevice.of("cuda", 5, 4)).isEqualTo(new RankDevice("cuda", 1));
    assertThat(RankDevice.of("cuda", 3, 1)).hasToString("cuda:0");
    assertThat(RankDevice.of("cuda", 9, 3).index()).isZero();
  }

  @Test
  void theCpuBackendTrainsOnTheCpuWhateverTheRank() {
    assertThat(RankDevice.of("cpu", 5, 0)).isEqualTo(RankDevice.CPU).hasToString("cpu");
    assertThat(RankDevice.of("cpu", 2, 8).cpu()).isTrue();
  }

  @Test
  void cudaWithoutAVisibleDeviceIsRefusedNamingIt() {
    assertThatThrownBy(() -> RankDevice.of("cuda", 0, 0)).isInstanceOf(CommException.class).hasMessageContaining("no CUDA device");
    assertThatThrownBy(() -> new RankDevice("cuda", -1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RankDevice("tpu", -1)).hasMessageContaining("cpu, cuda or meta");
  }

  @Test
  void placeMovesOnlyWhatIsElsewhere() {
    RankDevice meta = new RankDevice("meta", -1);
    try (PointerScope scope = new PointerScope()) {
      var host = torch.ones(3);
      assertThat(RankDevice.CPU.holds(host)).isTrue();
      assertThat(RankDevice.CPU.place(host)).isSameAs(host);
      var moved = meta.place(host);
      assertThat(moved.is_meta()).isTrue();
      assertThat(meta.holds(moved)).isTrue();
      assertThat(meta.holds(host)).isFalse();
    }
  }
}
