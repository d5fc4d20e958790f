package dev.weft.s3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.Trainer;
import dev.weft.launch.LocalLauncher;
import dev.weft.metrics.MetricsJson;
import dev.weft.spec.SpecIO;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Two real worker processes that get the endpoint and the keys only from their environment (as a
 * pod gets them from a Secret): a run saves to the bucket, a second run in a new run directory
 * resumes from a checkpoint there and trains steps 11-20 as the first did; the secret key is
 * nowhere in either run directory or in the bucket's manifests.
 */
@Tag("slow")
class S3ProcessTest {
  @TempDir Path dir;

  private static Trainer tiny() {
    return Trainer.model("gpt").set("model.config.layers", 2).set("model.config.hidden", 32).set("model.config.heads", 2)
        .seqLen(16).globalBatch(8).steps(20).warmup(2).lr(3e-3).seed(7).dataParallel(2).timeout(Duration.ofSeconds(120));
  }

  private static LocalLauncher.Outcome launch(Trainer t, Path runDir, Map<String, String> env, ByteArrayOutputStream console) throws IOException {
    Files.createDirectories(runDir);
    Path spec = runDir.resolve("in.yaml");
    SpecIO.write(t.runDir(runDir).toSpec(), spec);
    LocalLauncher l = new LocalLauncher(List.of("dev.weft.cli.WeftMain", "worker", "--spec", spec.toString(), "--run-dir", runDir.toString(),
        "--timeout", "120"), env, new PrintStream(console, true, StandardCharsets.UTF_8));
    return l.run(2, 1);
  }

  @Test
  void workerProcessesSaveToTheBucketAndANewRunResumesFromIt() throws Exception {
    try (S3Server server = S3Server.start("ckpt"); S3Client s3 = server.client()) {
      Map<String, String> env = Map.of("AWS_ENDPOINT_URL", server.endpoint.toString(), "AWS_ACCESS_KEY_ID", S3Server.ACCESS,
          "AWS_SECRET_ACCESS_KEY", S3Server.SECRET, "AWS_REGION", "us-east-1");
      ByteArrayOutputStream console = new ByteArrayOutputStream();
      LocalLauncher.Outcome a = launch(tiny().checkpointEvery(10).set("checkpoint.dir", "s3://ckpt/proc").set("checkpoint.async", true),
          dir.resolve("a"), env, console);
      assertThat(a.ok()).as(console.toString(StandardCharsets.UTF_8)).isTrue();
      LocalLauncher.Outcome b = launch(tiny().resume("s3://ckpt/proc/step-000010"), dir.resolve("b"), env, console);
      assertThat(b.ok()).as(console.toString(StandardCharsets.UTF_8)).isTrue();
      assertThat(console.toString(StandardCharsets.UTF_8)).contains("resumed from s3://ckpt/proc/step-000010");
      for (long step = 11; step <= 20; step++) {
        assertThat(MetricsJson.lossAt(dir.resolve("b"), step)).as("step %d", step).isEqualTo(MetricsJson.lossAt(dir.resolve("a"), step)).isPresent();
      }
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path f : files.filter(Files::isRegularFile).toList()) {
          assertThat(Files.readString(f, StandardCharsets.ISO_8859_1)).as(f.toString()).doesNotContain(S3Server.SECRET);
        }
      }
      for (String step : List.of("step-000010", "step-000020")) {
        String manifest = s3.getObjectAsBytes(r -> r.bucket("ckpt").key("proc/" + step + "/manifest.json")).asUtf8String();
        assertThat(manifest).contains("\"step\"").doesNotContain(S3Server.SECRET).doesNotContain(S3Server.ACCESS);
      }
      assertThat(console.toString(StandardCharsets.UTF_8)).doesNotContain(S3Server.SECRET);
    }
  }
}
