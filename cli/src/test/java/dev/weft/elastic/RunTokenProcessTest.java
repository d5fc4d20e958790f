package dev.weft.elastic;

import dev.weft.testing.StartedProcesses;
import dev.weft.launch.JavaCommand;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.Trainer;
import dev.weft.comm.RunToken;
import dev.weft.launch.FreePort;
import dev.weft.launch.LocalLauncher;
import dev.weft.spec.SpecIO;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real agents (issue 31 item 5): {@code weft train --nnodes} without a token makes one and prints it; a second node
 * without it is refused in one line, exit 2; started with the printed token it joins the run.
 */
class RunTokenProcessTest {
  private static final Pattern PRINTED = Pattern.compile("start the other nodes with WEFT_RUN_TOKEN=([0-9a-f]{32}) in their environment");
  @TempDir Path dir;
  @RegisterExtension final StartedProcesses started = new StartedProcesses();
  private final int port = FreePort.find();


  private Process agent(Path spec, String node, Map<String, String> env) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(JavaCommand.of(List.of("dev.weft.cli.WeftMain", "train", spec.toString(),
        "--nnodes", "2:2", "--rdzv-endpoint", "127.0.0.1:" + port, "--rdzv-id", "tok", "--run-dir", dir.resolve("run").toString(),
        "--set", "elastic.standby=0")))
        .redirectOutput(dir.resolve(node + ".out").toFile()).redirectError(dir.resolve(node + ".err").toFile());
    pb.environment().remove(RunToken.ENV);
    pb.environment().put("OMP_WAIT_POLICY", "PASSIVE");
    pb.environment().putAll(env);
    Process p = pb.start();
    started.add(p);
    return p;
  }

  /** Waits (generously: a loaded machine) until {@code node}'s output matches {@code pattern}. */
  private Matcher await(String node, Pattern pattern, Process p) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
    while (System.nanoTime() < deadline) {
      Path out = dir.resolve(node + ".out");
      Matcher m = pattern.matcher(Files.isRegularFile(out) ? Files.readString(out) : "");
      if (m.find()) return m;
      assertThat(p.isAlive()).as(node + " ended: " + Files.readString(dir.resolve(node + ".err"))).isTrue();
      Thread.sleep(200);
    }
    throw new AssertionError(node + " never printed " + pattern + ": " + Files.readString(dir.resolve(node + ".out")));
  }

  @Test
  void theFirstNodeMakesATokenAndANodeWithoutItIsRefusedInOneLine() throws Exception {
    Path spec = dir.resolve("tiny.yaml");
    SpecIO.write(Trainer.model("gpt").name("tiny-token").set("model.config.layers", 1).set("model.config.hidden", 32)
        .set("model.config.heads", 2).seqLen(16).globalBatch(8).steps(2).dataParallel(2).toSpec(), spec);
    Process a = agent(spec, "node-a", Map.of());
    String token = await("node-a", PRINTED, a).group(1);
    assertThat(Files.readString(dir.resolve("node-a.out"))).doesNotContain("warning: no WEFT_RUN_TOKEN");

    Process b = agent(spec, "node-b", Map.of());
    assertThat(b.waitFor(180, TimeUnit.SECONDS)).as("the node without the token ends").isTrue();
    String err = Files.readString(dir.resolve("node-b.err")).strip();
    assertThat(b.exitValue()).as(err).isEqualTo(2);
    assertThat(err.lines()).as(err).hasSize(1);
    assertThat(err).startsWith("weft: WEFT_RUN_TOKEN: the rendezvous store at 127.0.0.1:" + port).doesNotContain("Exception");

    Process c = agent(spec, "node-c", Map.of(RunToken.ENV, token));
    await("node-c", Pattern.compile("generation 0: node 1 of 2"), c); // joined the run the first node made
  }
}
