package dev.weft.cuda.nccl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.weft.comm.CommException;
import dev.weft.cuda.jni.NcclLib;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Without libnccl.so.2 the shim loads, and every NCCL use says which library is missing. */
class NcclShimTest {
  @BeforeEach
  void noNcclHere() {
    assumeFalse(Nccl.status().loaded(), "NCCL is installed on this machine");
  }

  @Test
  void aMissingLibncclIsReportedByName() {
    Nccl.Status s = Nccl.status();
    assertThat(s.requested()).isEqualTo("libnccl.so.2");
    assertThat(s.error()).contains("libnccl.so.2").contains("cannot open shared object file").contains("LD_LIBRARY_PATH");
    assertThat(s.describe()).startsWith("NCCL not available: ");
  }

  @Test
  void anExplicitPathIsNamedToo() {
    Nccl.Status s = Nccl.load("/opt/nowhere/libnccl.so.2");
    assertThat(s.loaded()).isFalse();
    assertThat(s.error()).contains("/opt/nowhere/libnccl.so.2");
  }

  /** The list the GPU check's symbol listing reads holds what the all-to-all's group needs, and nothing twice. */
  @Test
  void theShimNamesTheNcclSymbolsItResolves() {
    java.util.List<String> names = java.util.List.of(NcclLib.weft_nccl_symbols().trim().split(" "));
    assertThat(names).contains("ncclSend", "ncclRecv", "ncclGroupStart", "ncclGroupEnd", "ncclAllReduce").doesNotHaveDuplicates()
        .hasSize(16).allSatisfy(n -> assertThat(n).startsWith("nccl"));
  }

  @Test
  void aLibraryWithoutNcclSymbolsIsRejectedNamingTheSymbol() {
    Nccl.Status s = Nccl.load("libc.so.6");
    assertThat(s.loaded()).isFalse();
    assertThat(s.error()).contains("has no symbol ncclGetVersion");
    assertThat(NcclLib.weft_nccl_loaded()).isZero();
  }

  @Test
  void everyCallBeforeALoadAnswersNotLoaded() {
    assertThat(NcclLib.weft_nccl_group_start()).isEqualTo(NcclLib.NOT_LOADED);
    assertThat(NcclLib.weft_nccl_all_reduce(0, 0, 1, 7, 0, 0, 0)).isEqualTo(NcclLib.NOT_LOADED);
    assertThat(NcclLib.weft_nccl_error_string(NcclLib.NOT_LOADED)).isEqualTo("libnccl.so.2 is not loaded");
    assertThatThrownBy(Nccl::uniqueId).isInstanceOf(CommException.class).hasMessageContaining("libnccl.so.2");
    assertThatThrownBy(() -> NcclComm.init("dp", new byte[128], 0, 1, Duration.ofSeconds(1)))
        .isInstanceOf(CommException.class).hasMessageContaining("group dp needs NCCL").hasMessageContaining("libnccl.so.2");
    assertThatThrownBy(() -> NcclComm.groupStart()).hasMessageContaining("NCCL error 1000: libnccl.so.2 is not loaded");
  }

  @Test
  void versionsAndTypesMapToNcclEncodings() {
    assertThat(Nccl.versionString(22703)).isEqualTo("2.27.3");
    assertThat(NcclDataType.of(org.bytedeco.pytorch.global.torch.ScalarType.BFloat16).code).isEqualTo(9);
    assertThat(NcclComm.opCode(dev.weft.comm.ReduceOp.AVG)).isEqualTo(4);
    assertThatThrownBy(() -> NcclDataType.of(org.bytedeco.pytorch.global.torch.ScalarType.ComplexFloat))
        .hasMessageContaining("NCCL cannot carry tensors of type ComplexFloat");
  }
}
