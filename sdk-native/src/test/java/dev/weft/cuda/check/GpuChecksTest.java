package dev.weft.cuda.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.cuda.CudaRuntime;
import dev.weft.cuda.CudaStream;
import dev.weft.cuda.GpuTest;
import org.junit.jupiter.api.Test;

/** The GPU check's parts as tests, for machines with a device and a JDK. */
@GpuTest
class GpuChecksTest {
  @Test
  void everyKernelMatchesItsReference() {
    CudaRuntime.setDevice(0);
    try (CudaStream s = CudaStream.create()) {
      assertThat(new KernelCheck(s).runAll()).allSatisfy(r -> assertThat(r.passed()).as(r.toString()).isTrue());
    }
  }

  @Test
  void ncclSingleRankRoundTrip() {
    CudaRuntime.setDevice(0);
    try (CudaStream s = CudaStream.create()) {
      assertThat(new NcclCheck(s).runAll()).allSatisfy(r -> assertThat(r.passed()).as(r.toString()).isTrue());
    }
  }
}
