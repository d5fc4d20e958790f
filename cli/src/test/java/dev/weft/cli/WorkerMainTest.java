package dev.weft.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.launch.WorkerMain;
import org.junit.jupiter.api.Test;

class WorkerMainTest {
  @Test
  void theWorkerClassLaunchersStartIsTheCliMain() {
    assertThat(WorkerMain.CLASS).isEqualTo(WeftMain.class.getName());
  }

  @Test
  void theStandbySubcommandTheAgentStartsExists() {
    assertThat(WeftMain.commandLine().getSubcommands()).containsKey(WorkerMain.STANDBY);
  }
}
