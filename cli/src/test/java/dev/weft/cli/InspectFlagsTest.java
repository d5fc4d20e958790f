package dev.weft.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Issue 31, item 11: {@code checkpoint inspect --no-tensors} listed the tensors and {@code --tensors} hid them. */
class InspectFlagsTest {
  private static boolean listsTensors(String... args) {
    CheckpointCommand.Inspect inspect = new CheckpointCommand.Inspect();
    new CommandLine(inspect).parseArgs(args);
    return inspect.tensors;
  }

  @Test
  void theFlagsDoWhatTheirNamesSay() {
    assertThat(listsTensors("ckpt")).isTrue();
    assertThat(listsTensors("ckpt", "--tensors")).isTrue();
    assertThat(listsTensors("ckpt", "--no-tensors")).isFalse();
  }
}
