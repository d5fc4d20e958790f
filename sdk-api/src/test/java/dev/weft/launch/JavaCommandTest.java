package dev.weft.launch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A worker's JVM gets JavaCPP's settings of this one: a pod's {@code -gpu} extension must reach the ranks it starts. */
class JavaCommandTest {
  @Test
  void javacppSettingsReachTheChildAndTheMainClassComesLast() {
    String key = "org.bytedeco.javacpp.platform.extension";
    String before = System.getProperty(key);
    System.setProperty(key, "-gpu");
    try {
      List<String> cmd = JavaCommand.of(List.of("dev.weft.cli.WeftMain", "worker"));
      assertThat(cmd).contains("-D" + key + "=-gpu", "-cp");
      assertThat(cmd.subList(cmd.size() - 2, cmd.size())).containsExactly("dev.weft.cli.WeftMain", "worker");
      assertThat(cmd.indexOf("-D" + key + "=-gpu")).isLessThan(cmd.indexOf("dev.weft.cli.WeftMain"));
    } finally {
      if (before == null) System.clearProperty(key); else System.setProperty(key, before);
    }
  }
}
