package dev.weft.tracking.progress;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.Trainer;
import dev.weft.launch.LocalLauncher;
import dev.weft.spec.SpecIO;
import dev.weft.testing.PythonRef;
import dev.weft.testing.TensorBoardRead;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worker process {@code weft train} starts, in a TrainJob pod's environment, reports to a TLS server with its own CA;
 * its TensorBoard event files hold every step's loss of {@code metrics.jsonl}.
 */
@Tag("slow")
class TrainJobProgressProcessTest {
  @TempDir Path dir;

  private LocalLauncher worker(String name, Map<String, String> env, ByteArrayOutputStream console) {
    Path run = dir.resolve(name);
    var spec = Trainer.model("gpt").name("tiny").set("model.config.layers", 1).set("model.config.hidden", 32)
        .set("model.config.heads", 2).seqLen(16).globalBatch(4).steps(6).runDir(run).timeout(Duration.ofSeconds(60)).toSpec();
    Path file = dir.resolve(name + ".yaml");
    SpecIO.write(spec, file);
    // the worker process `weft train` starts, with what the Trainer's TrainJobStatus plugin injects
    return new LocalLauncher(List.of(dev.weft.launch.WorkerMain.CLASS, "worker", "--spec", file.toString(), "--run-dir", run.toString()), env,
        new PrintStream(console, true, StandardCharsets.UTF_8));
  }

  /**
   * Two workers at once: one reports to the TLS server (token, path, schema, last step 100 %, the loss of
   * metrics.jsonl); the other to a port that accepts connections and never answers, and still finishes, its last report
   * left after the bounded wait at close.
   */
  @Test
  void aRealWorkerPostsItsProgressAndAHangingServerDoesNotHoldOneBack() throws Exception {
    TestCa ca = TestCa.make(dir, "weft-test-ca");
    Path token = Files.writeString(dir.resolve("token"), "jwt-one\n");
    ByteArrayOutputStream console = new ByteArrayOutputStream(), hungConsole = new ByteArrayOutputStream();
    try (StatusServer server = new StatusServer(ca); ServerSocket hang = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      LocalLauncher hung = worker("hung", StatusServer.env(hang.getLocalPort(), ca.caPem(), token), hungConsole);
      CompletableFuture<LocalLauncher.Outcome> hungRun = CompletableFuture.supplyAsync(() -> hung.run(1, 1));
      LocalLauncher.Outcome o = worker("run", server.env(ca.caPem(), token), console).run(1, 1);
      String out = console.toString(StandardCharsets.UTF_8);
      assertThat(o.ok()).as(out).isTrue();
      Path run = dir.resolve("run");
      List<StatusServer.Post> posts = server.posts;
      // a run this short may hand every step over before the first post: the latest wins, the end's is sent
      assertThat(posts).as("the last step's report at least:\n%s", out).isNotEmpty();
      for (StatusServer.Post p : posts) {
        assertThat(p.method()).isEqualTo("POST");
        assertThat(p.path()).isEqualTo(StatusServer.PATH);
        assertThat(p.auth()).isEqualTo("Bearer jwt-one");
        assertThat(p.contentType()).isEqualTo("application/json");
        TrainJobProgressTest.assertSchema(p.body());
      }
      for (int i = 1; i < posts.size() - 1; i++) {
        assertThat(Duration.between(posts.get(i - 1).at(), posts.get(i).at())).as("at most one report per 5 s")
            .isGreaterThanOrEqualTo(Duration.ofMillis(4500));
      }
      JsonNode last = posts.get(posts.size() - 1).body().get("trainerStatus");
      assertThat(last.get("progressPercentage").asInt()).isEqualTo(100);
      assertThat(last.get("estimatedRemainingSeconds").asInt()).isZero();
      Map<String, String> metrics = TrainJobProgressTest.metrics(last);
      assertThat(metrics).containsEntry("current_step", "6").containsEntry("total_steps", "6")
          .containsKeys("loss", "learning_rate", "grad_norm", "tokens_per_s");
      JsonNode lastLine = StatusServer.JSON.readTree(Files.readAllLines(run.resolve("metrics.jsonl")).get(5));
      assertThat(Double.parseDouble(metrics.get("loss"))).as("the loss metrics.jsonl holds")
          .isCloseTo(lastLine.get("loss").asDouble(), Offset.offset(1e-5));

      LocalLauncher.Outcome h = hungRun.get(3, TimeUnit.MINUTES);
      String hungOut = hungConsole.toString(StandardCharsets.UTF_8);
      assertThat(h.ok()).as(hungOut).isTrue();
      assertThat(Files.readAllLines(dir.resolve("hung").resolve("metrics.jsonl"))).hasSize(6);
      assertThat(hungOut).as("the report at close waited its bound, not the post's deadline")
          .contains("did not go out within 5 s");
      PythonRef.require("tensorboard"); // last: without it only this part is skipped
      // the same worker's event files, as TensorBoard's own reader sees them: every step's loss of metrics.jsonl
      JsonNode loss = TensorBoardRead.read(run.resolve("tensorboard")).get(0).get("train/loss");
      List<String> lines = Files.readAllLines(run.resolve("metrics.jsonl"));
      assertThat(loss).hasSize(lines.size());
      for (int i = 0; i < lines.size(); i++) {
        assertThat((float) loss.get(i).get(1).asDouble()).isEqualTo((float) StatusServer.JSON.readTree(lines.get(i)).get("loss").asDouble());
      }
    }
  }
}
