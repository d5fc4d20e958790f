package dev.weft.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.launch.JavaCommand;
import dev.weft.util.Tensors;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.bytedeco.pytorch.Tensor;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A child JVM saves in a loop and is SIGKILLed at random moments, mid-save; each time the
 * checkpoint {@code latest} names is complete and loads with the values of its step, and the next
 * child resumes from it.
 */
@Tag("slow")
class CrashSafetyTest {
  @TempDir Path root;

  @Test
  void killedMidSaveLeavesTheLastCommittedCheckpointLoadable() throws Exception {
    Random rnd = new Random(42);
    long lastStep = 0;
    for (int round = 0; round < 3; round++) {
      Process p = start(round % 2 == 1);
      BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      String line;
      int saves = 0;
      while ((line = out.readLine()) != null && saves < 2) if (line.startsWith("saving ")) saves++; // let it commit at least one
      assertThat(line).as("child output (did it start?)").isNotNull();
      Thread.sleep(rnd.nextInt(400));
      p.destroyForcibly(); // SIGKILL
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();

      String latest = Files.readString(root.resolve("latest")).lines().findFirst().orElse("").strip();
      Checkpoint named = Checkpoint.open(root.resolve(latest));
      named.verify(); // no fallback needed: what latest names is always complete
      Checkpoint c = CheckpointResolver.latest(root).orElseThrow();
      assertThat(c.step()).isEqualTo(named.step()).isGreaterThanOrEqualTo(lastStep);
      lastStep = c.step();
      List<StateEntry> blanks = new ArrayList<>();
      for (int i = 0; i < CrashLoopSaver.SHAPES.length; i++) {
        blanks.add(StateEntry.whole("model/t" + i, Tensors.zeros(org.bytedeco.pytorch.global.torch.ScalarType.Float, CrashLoopSaver.SHAPES[i]), true));
      }
      c.load(blanks);
      for (StateEntry e : blanks) {
        Tensor t = e.data();
        assertThat(t.min().item_double()).as(e.name()).isEqualTo(lastStep);
        assertThat(t.max().item_double()).as(e.name()).isEqualTo(lastStep);
      }
    }
  }

  private Process start(boolean async) throws Exception {
    List<String> cmd = JavaCommand.of(List.of(CrashLoopSaver.class.getName(), root.toString(), Boolean.toString(async)));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD);
    pb.environment().put("OMP_NUM_THREADS", "1");
    pb.environment().put("OMP_WAIT_POLICY", "PASSIVE");
    return pb.start();
  }
}
