package dev.weft.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.launch.WorkerMain;
import dev.weft.worker.WorkerProcess;
import org.junit.jupiter.api.Test;

class WorkerMainTest {
  @Test
  void theWorkerClassLaunchersStartIsSdkApisWorkerProcess() {
    assertThat(WorkerMain.CLASS).isEqualTo(WorkerProcess.class.getName());
  }

  @Test
  void theCommandStillRunsWorkerAndStandby() {
    assertThat(WeftMain.commandLine().getSubcommands()).containsKeys(WorkerMain.WORKER, WorkerMain.STANDBY);
  }
}
