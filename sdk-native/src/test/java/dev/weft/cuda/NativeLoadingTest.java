package dev.weft.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.weft.error.WeftException;
import dev.weft.comm.Backend;
import dev.weft.comm.Backends;
import dev.weft.device.DeviceDecision;
import dev.weft.device.Devices;
import dev.weft.spec.SpecException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bindings load on a machine without GPU or driver, and say so precisely. */
class NativeLoadingTest {
  private static final String LIBS = "/dev/weft/cuda/jni/linux-x86_64/";

  @Test
  void theBuildPutsKernelsShimAndJniGlueIntoTheJarResources() {
    for (String lib : List.of("libweftkernels.so", "libweftnccl.so", "libjniKernelLib.so", "libjniNcclLib.so")) {
      assertThat(NativeLibraries.class.getResource(LIBS + lib)).as(lib).isNotNull();
    }
  }

  @Test
  void bothLibrariesLoadWithoutAGpu() {
    assertThat(NativeLibraries.kernels().ok()).as(String.valueOf(NativeLibraries.kernels().error())).isTrue();
    assertThat(NativeLibraries.ncclShim().ok()).as(String.valueOf(NativeLibraries.ncclShim().error())).isTrue();
    assertThat(NativeLibraries.kernels().path()).contains("libweftkernels.so").contains("libjniKernelLib.so");
  }

  @Test
  void runtimeVersionIsTheStaticCudartWeftWasBuiltWith() {
    assertThat(CudaRuntime.runtimeVersion()).isGreaterThanOrEqualTo(12000);
    assertThat(CudaRuntime.versionString(13000)).isEqualTo("13.0");
    assertThat(CudaRuntime.versionString(12040)).isEqualTo("12.4");
  }

  @Test
  void doctorSaysThatNoDriverIsPresentAndWhichLibrariesWeftUses() {
    assumeNoDriver();
    List<String> report = CudaDoctor.report();
    assertThat(report.get(0)).startsWith("CUDA driver:").contains("not present").contains("libcuda.so.1");
    assertThat(report).anySatisfy(l -> assertThat(l).startsWith("CUDA runtime:").contains("13."));
    assertThat(report).anySatisfy(l -> assertThat(l).startsWith("CUDA devices:").contains("none").contains("cudaError"));
    assertThat(report).anySatisfy(l -> assertThat(l).startsWith("NCCL:").contains("libnccl.so.2"));
    assertThat(report).anySatisfy(l -> assertThat(l).startsWith("Weft kernels:").contains("libweftkernels.so"));
    assertThat(report).anySatisfy(l -> assertThat(l).startsWith("Weft NCCL shim:").contains("libweftnccl.so"));
    assertThat(report.get(report.size() - 1)).contains("not usable here").contains("no CUDA driver");
  }

  @Test
  void theCudaBackendIsRegisteredAndExplainsWhyItIsUnavailable() {
    assumeNoDriver();
    Backend cuda = Backends.all().stream().filter(b -> b.name().equals("cuda")).findFirst().orElseThrow();
    Backend.Availability a = cuda.probe();
    assertThat(a.available()).isFalse();
    assertThat(a.detail()).startsWith("no CUDA driver (libcuda.so.1").contains("CUDA driver:     not present").contains("libcuda.so.1").contains("libweftkernels.so");
    assertThatThrownBy(() -> Backends.select("cuda")).isInstanceOf(WeftException.class)
        .hasMessageContaining("device 'cuda' is not usable here").hasMessageContaining("libcuda.so.1");
    assertThatThrownBy(() -> cuda.createGroup(null, "dp", 0, 1, Duration.ofSeconds(1)))
        .isInstanceOf(WeftException.class).hasMessageContaining("device: cuda is not usable here: no CUDA driver");
  }

  @Test
  void deviceSelectionNamesDeviceAndEveryMissingPieceAndAutoFallsBackToCpu() {
    assumeNoDriver();
    assertThatThrownBy(() -> Devices.decide("cuda")).isInstanceOf(SpecException.class)
        .hasMessageStartingWith("device: cuda is not usable here: no CUDA driver (libcuda.so.1")
        .hasMessageContaining("; NCCL: ").hasMessageContaining("libnccl.so.2")
        .hasMessageContaining("; libtorch CUDA: the libtorch on the classpath is the CPU build")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    DeviceDecision auto = Devices.decide("auto");
    assertThat(auto.backend()).isEqualTo("cpu");
    assertThat(auto.note()).startsWith("device: auto chose cpu, because CUDA is not usable here: no CUDA driver");
    assertThat(Devices.backend(auto).name()).isEqualTo("cpu");
    assertThat(CudaStatus.current().missingPieces()).hasSize(3);
  }

  @Test
  void deviceCallsFailWithTheCudaErrorAndTheCall() {
    assumeNoDriver();
    assertThatThrownBy(() -> DeviceBuffer.allocate(1024)).isInstanceOf(CudaException.class)
        .hasMessageContaining("cudaMalloc(1024 bytes) failed: cudaError");
    assertThatThrownBy(CudaStream::create).isInstanceOf(CudaException.class).hasMessageContaining("cudaStreamCreate failed");
  }

  @Test
  void localRankPicksTheDevice() {
    assertThat(LocalDevice.index(1)).isZero();
    assertThatThrownBy(() -> LocalDevice.index(0)).hasMessageContaining("no CUDA device");
  }

  static void assumeNoDriver() {
    assumeFalse(Files.exists(Path.of("/dev/nvidiactl")), "this machine has an NVIDIA driver");
  }
}
