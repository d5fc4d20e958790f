package dev.weft.device;

import dev.weft.plan.SpecCheck;
import dev.weft.spec.DeviceChoice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.comm.Backend.Availability;
import dev.weft.spec.SpecException;
import dev.weft.spec.SpecIO;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Every case of device selection, with the CUDA probe as an argument (no GPU anywhere this runs). */
class DeviceSelectionTest {
  private static final Optional<Availability> USABLE =
      Optional.of(Availability.yes("CUDA with NCCL on 1 device(s)\nCUDA device:     cuda:0 NVIDIA H200"));
  private static final Optional<Availability> MISSING = Optional.of(Availability.no(
      "no CUDA driver (libcuda.so.1: not found); NCCL: libnccl.so.2 missing\nCUDA driver:     not present"));

  @Test
  void cpuNeverProbesAndAlwaysRuns() {
    assertThat(DeviceSelection.decide(DeviceChoice.CPU, MISSING)).isEqualTo(new DeviceDecision("cpu", "device: cpu"));
    assertThat(DeviceSelection.decide(DeviceChoice.CPU, Optional.empty()).cuda()).isFalse();
  }

  @Test
  void cudaWhereUsableTakesTheCudaBackend() {
    DeviceDecision d = DeviceSelection.decide(DeviceChoice.CUDA, USABLE);
    assertThat(d.backend()).isEqualTo("cuda");
    assertThat(d.cuda()).isTrue();
    assertThat(d.note()).isEqualTo("device: cuda (CUDA with NCCL on 1 device(s))");
  }

  @Test
  void cudaWhereMissingIsOneSpecErrorNamingDeviceAndEveryMissingPiece() {
    assertThatThrownBy(() -> DeviceSelection.decide(DeviceChoice.CUDA, MISSING))
        .isInstanceOf(SpecException.class)
        .hasMessage("device: cuda is not usable here: no CUDA driver (libcuda.so.1: not found); NCCL: libnccl.so.2 missing;"
            + " use device=cpu or device=auto, or see weft doctor")
        .satisfies(e -> assertThat(((SpecException) e).field()).isEqualTo("device"));
  }

  @Test
  void cudaWithoutTheNativeJarSaysWhichJarToAdd() {
    assertThatThrownBy(() -> DeviceSelection.decide(DeviceChoice.CUDA, Optional.empty()))
        .isInstanceOf(SpecException.class)
        .hasMessageContaining("device: cuda is not usable here: the CUDA backend is not on the classpath")
        .hasMessageContaining("weft-sdk-native");
  }

  @Test
  void autoPicksCudaWhereUsableAndCpuOtherwiseSayingWhy() {
    assertThat(DeviceSelection.decide(DeviceChoice.AUTO, USABLE))
        .isEqualTo(new DeviceDecision("cuda", "device: auto chose cuda (CUDA with NCCL on 1 device(s))"));
    DeviceDecision cpu = DeviceSelection.decide(DeviceChoice.AUTO, MISSING);
    assertThat(cpu.backend()).isEqualTo("cpu");
    assertThat(cpu.note()).isEqualTo("device: auto chose cpu, because CUDA is not usable here: no CUDA driver"
        + " (libcuda.so.1: not found); NCCL: libnccl.so.2 missing");
    assertThat(DeviceSelection.decide(DeviceChoice.AUTO, Optional.empty()).note())
        .contains("the CUDA backend is not on the classpath");
  }

  @Test
  void theSpecFieldDefaultsToCpuAndRejectsOtherValuesNamingTheField() {
    assertThat(SpecIO.parse("name: t\n").device()).isEqualTo("cpu");
    assertThat(DeviceChoice.parse(SpecIO.parse("device: AUTO\n").device())).isEqualTo(DeviceChoice.AUTO);
    assertThatThrownBy(() -> SpecCheck.validate(SpecIO.parse("device: gpu\n")))
        .isInstanceOf(SpecException.class).hasMessage("device: 'gpu' is not a device; use cpu, cuda or auto");
  }

  @Test
  void onAMachineWithoutTheCudaBackendAutoIsCpuAndCudaIsRefused() {
    // sdk-api's tests have no sdk-native on the classpath: the real lookup finds no backend named cuda
    assertThat(Devices.decide("auto").backend()).isEqualTo("cpu");
    assertThat(Devices.decide("cpu").backend()).isEqualTo("cpu");
    assertThatThrownBy(() -> Devices.decide("cuda")).isInstanceOf(SpecException.class).hasMessageStartingWith("device: ");
  }
}
