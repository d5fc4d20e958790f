package dev.weft.s3;

import dev.weft.testing.WeftCli;
import dev.weft.testing.WeftCli.Output;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.Trainer;
import dev.weft.error.WeftException;
import dev.weft.checkpoint.CheckpointResolver;
import dev.weft.checkpoint.CheckpointStorage;
import dev.weft.checkpoint.CheckpointStorages;
import dev.weft.train.RunResult;
import dev.weft.train.StepListener;
import dev.weft.metrics.StepMetrics;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@code checkpoint.dir: s3://...} against a real S3-compatible server on loopback (S3Proxy): a run
 * interrupted after its step-10 commit, resumed in a new run directory from {@code latest} in the
 * bucket, trains steps 11-20 exactly as a run that never stopped; damage falls back; retention
 * deletes objects; a wrong endpoint, bucket or key is one line saying what to fix.
 */
class S3CheckpointTest {
  @TempDir static Path dir;
  static S3Server server;
  static S3Client s3;
  static List<Double> uninterrupted;

  @BeforeAll
  static void start() throws Exception {
    server = S3Server.start("ckpt", "other");
    s3 = server.client();
    uninterrupted = small().runDir(dir.resolve("ref")).fit().losses();
  }

  @AfterAll
  static void stop() throws Exception {
    if (s3 != null) s3.close();
    if (server != null) server.close();
  }

  private static Trainer small() {
    return Trainer.model("gpt").set("model.config.layers", 2).set("model.config.hidden", 32).set("model.config.heads", 2)
        .seqLen(16).globalBatch(8).steps(20).warmup(2).lr(3e-3).seed(31).dataParallel(2).zero(1);
  }

  /** A run saving to {@code uri} every 10 steps that stops (every rank) at the boundary after step {@code stopAt}. */
  private static void interruptedRun(String uri, Path runDir, long stopAt, boolean async) {
    StepListener stop = new StepListener() {
      @Override public void onStep(StepMetrics m, long total) {}
      @Override public void atStepBoundary(int rank, long step) {
        if (step == stopAt) throw new IllegalStateException("stopped after step " + stopAt);
      }
    };
    assertThatThrownBy(() -> small().checkpointEvery(10).set("checkpoint.dir", uri).set("checkpoint.async", async)
        .onStep(stop).runDir(runDir).fit()).hasMessageContaining("stopped after step " + stopAt);
  }

  private static List<String> keys(String prefix) {
    return s3.listObjectsV2(b -> b.bucket("ckpt").prefix(prefix)).contents().stream().map(o -> o.key()).sorted().toList();
  }

  @Test
  void aNewRunDirectoryResumesFromLatestInTheBucketAndMatchesAnUninterruptedRun() {
    interruptedRun("s3://ckpt/resume", dir.resolve("r-a"), 10, true);
    assertThat(keys("resume/")).filteredOn(k -> !k.startsWith("resume/run/")).containsExactly("resume/latest",
        "resume/step-000010/manifest.json", "resume/step-000010/rank-00000.safetensors", "resume/step-000010/rank-00001.safetensors");
    // the run's record rides with its checkpoints, so a run directory on another host can show the whole history
    assertThat(keys("resume/run/")).contains("resume/run/metrics.jsonl");
    RunResult resumed = small().set("checkpoint.dir", "s3://ckpt/resume").resume("latest").runDir(dir.resolve("r-b")).fit();
    assertThat(resumed.losses()).isEqualTo(uninterrupted.subList(10, 20));
    // the same from the URI of the checkpoint, with checkpoints of this run going elsewhere
    RunResult byUri = small().resume("s3://ckpt/resume/step-000010").runDir(dir.resolve("r-c")).fit();
    assertThat(byUri.losses()).isEqualTo(uninterrupted.subList(10, 20));
  }

  @Test
  void aDamagedNewestCheckpointFallsBackToThePreviousOne() throws Exception {
    small().checkpointEvery(10).set("checkpoint.dir", "s3://ckpt/damage").runDir(dir.resolve("d-a")).fit();
    try (CheckpointStorage st = CheckpointStorages.open("s3://ckpt/damage", dir.resolve("d-work"))) {
      assertThat(CheckpointResolver.latest(st, c -> {}).orElseThrow().step()).isEqualTo(20);
      // a manifest changed by one byte that still parses
      String key = "damage/step-000020/manifest.json";
      byte[] m = s3.getObjectAsBytes(b -> b.bucket("ckpt").key(key)).asByteArray();
      String text = new String(m, StandardCharsets.UTF_8);
      assertThat(text).contains("\"step\" : 20");
      s3.putObject(b -> b.bucket("ckpt").key(key), RequestBody.fromString(text.replaceFirst("\"step\" : 20", "\"step\" : 21")));
      assertThat(CheckpointResolver.latest(st, c -> {}).orElseThrow().step()).isEqualTo(10);
      s3.putObject(b -> b.bucket("ckpt").key(key), RequestBody.fromBytes(m));
      assertThat(CheckpointResolver.latest(st, c -> {}).orElseThrow().step()).isEqualTo(20);
      // a shard gone
      s3.deleteObject(b -> b.bucket("ckpt").key("damage/step-000020/rank-00001.safetensors"));
      assertThat(CheckpointResolver.latest(st, c -> {}).orElseThrow().step()).isEqualTo(10);
    }
    Output inspect = WeftCli.capture("checkpoint", "inspect", "--no-tensors", "s3://ckpt/damage");
    assertThat(inspect.code()).isEqualTo(1);
    assertThat(inspect.out()).contains("step-000020  DAMAGED").contains("step-000010  OK")
        .contains("checkpoint s3://ckpt/damage/step-000010\n  step 10, mesh dp=2");
    RunResult resumed = small().set("checkpoint.dir", "s3://ckpt/damage").resume("latest").runDir(dir.resolve("d-b")).fit();
    assertThat(resumed.losses()).isEqualTo(uninterrupted.subList(10, 20));
  }

  @Test
  void retentionDeletesTheObjectsOfOldCheckpoints() {
    small().steps(30).checkpointEvery(10).set("checkpoint.dir", "s3://ckpt/keep").set("checkpoint.keep", 2).set("checkpoint.async", true)
        .runDir(dir.resolve("k-a")).fit();
    assertThat(keys("keep/")).noneMatch(k -> k.startsWith("keep/step-000010/")).contains("keep/step-000020/manifest.json",
        "keep/step-000030/manifest.json", "keep/step-000030/rank-00001.safetensors");
    assertThat(new String(s3.getObjectAsBytes(b -> b.bucket("ckpt").key("keep/latest")).asByteArray(), StandardCharsets.UTF_8))
        .startsWith("step-000030\nrun_token "); // the pointer names the run that moved it (sha256:… or none)
  }

  @Test
  void aCutSaveLeavesNothingBehindAndAStepSavedAgainIsWholeAgain() throws Exception {
    // what a save cut short after its upload and before its manifest leaves: a shard without a manifest
    s3.putObject(b -> b.bucket("ckpt").key("again/step-000005/rank-00000.safetensors"), RequestBody.fromString("partial"));
    small().checkpointEvery(10).set("checkpoint.dir", "s3://ckpt/again").runDir(dir.resolve("g-a")).fit();
    assertThat(keys("again/")).noneMatch(k -> k.startsWith("again/step-000005/"));
    // resume from step 10 while step 20 exists: this run saves step 20 again over the old one
    RunResult again = small().set("checkpoint.dir", "s3://ckpt/again").checkpointEvery(10).resume("s3://ckpt/again/step-000010")
        .runDir(dir.resolve("g-b")).fit();
    assertThat(again.losses()).isEqualTo(uninterrupted.subList(10, 20));
    try (CheckpointStorage st = CheckpointStorages.open("s3://ckpt/again", dir.resolve("g-work"))) {
      assertThat(st.latest()).hasValue(20);
      var c = CheckpointResolver.latest(st, x -> {}).orElseThrow();
      assertThat(c.step()).isEqualTo(20);
      assertThat(c.manifest().files()).containsOnlyKeys("rank-00000.safetensors", "rank-00001.safetensors");
    }
  }

  @Test
  void aWrongBucketKeyOrEndpointIsOneLineSayingWhatToFix() throws Exception {
    assertThatThrownBy(() -> CheckpointStorages.open("s3://no-such-bucket/x", dir.resolve("e1")))
        .isInstanceOf(WeftException.class).hasMessageStartingWith("checkpoint.dir: s3://no-such-bucket/x: bucket 'no-such-bucket' does not exist");
    try {
      server.point(server.endpoint.toString(), S3Server.ACCESS, "wrong-secret");
      assertThatThrownBy(() -> CheckpointStorages.open("s3://ckpt/x", dir.resolve("e2"))).isInstanceOf(WeftException.class)
          .hasMessageContaining("refused the credentials (HTTP 403)").hasMessageContaining("AWS_SECRET_ACCESS_KEY").hasMessageNotContaining("wrong-secret");
      int port;
      try (ServerSocket free = new ServerSocket(0)) {
        port = free.getLocalPort();
      }
      server.point("http://127.0.0.1:" + port, S3Server.ACCESS, S3Server.SECRET);
      assertThatThrownBy(() -> CheckpointStorages.open("s3://ckpt/x", dir.resolve("e3"))).isInstanceOf(WeftException.class)
          .hasMessageContaining("cannot reach http://127.0.0.1:" + port).hasMessageContaining("AWS_ENDPOINT_URL");
      Output train = WeftCli.capture("checkpoint", "inspect", "s3://ckpt/x");
      assertThat(train.code()).isEqualTo(2);
      assertThat(train.err().strip().lines()).hasSize(1).allMatch(l -> l.startsWith("weft: checkpoint.dir: s3://ckpt/x: cannot reach"));
    } finally {
      server.point(server.endpoint.toString(), S3Server.ACCESS, S3Server.SECRET);
    }
    for (String e : new String[] {"e1", "e2", "e3"}) assertThat(dir.resolve(e)).doesNotExist();
    assertThatThrownBy(() -> CheckpointStorages.open("s3://AKIA:topsecret@ckpt/x", dir.resolve("e4"))).isInstanceOf(WeftException.class)
        .hasMessageContaining("holds credentials").hasMessageNotContaining("topsecret");
  }

}
