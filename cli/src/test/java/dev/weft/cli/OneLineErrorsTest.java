package dev.weft.cli;

import static dev.weft.testing.WeftCli.assertOneLine;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import dev.weft.testing.WeftCli;
import dev.weft.testing.WeftCli.Run;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** User mistakes end in one {@code weft:} line and exit 2, without a stack trace; a trace only with --debug. */
class OneLineErrorsTest {
  @TempDir Path dir;
  private Path spec;

  @BeforeEach
  void spec() throws Exception {
    spec = dir.resolve("s.yaml");
    Files.writeString(spec, "name: t\nparallel:\n  dp: 1\ntrain:\n  globalBatch: 4\n  steps: 2\n");
  }

  private static Run weft(String... args) { return WeftCli.run(args); }

  @Test
  void rendezvousBackendAndEndpointMistakesNameTheFlagOrField() {
    String run = dir.resolve("run").toString();
    assertOneLine(weft("train", spec.toString(), "--nnodes", "1", "--rdzv-backend", "zk", "--run-dir", run), 2, "--rdzv-backend",
        "'zk'", "c10d, etcd");
    assertOneLine(weft("train", spec.toString(), "--nnodes", "1", "--set", "elastic.rdzvBackend=zk", "--run-dir", run), 2,
        "elastic.rdzvBackend");
    assertOneLine(weft("train", spec.toString(), "--nnodes", "1", "--rdzv-backend", "etcd", "--rdzv-endpoint", "etcd-host",
        "--run-dir", run), 2, "--rdzv-endpoint", "'etcd-host'", "HOST:PORT");
    assertOneLine(weft("train", spec.toString(), "--nnodes", "1", "--set", "elastic.rdzvEndpoint=etcd:x", "--run-dir", run), 2,
        "elastic.rdzvEndpoint");
  }

  @Test
  void noEtcdAtTheEndpointIsOneLineWithinSixFailureTimeouts() {
    int nobody = dev.weft.launch.FreePort.find();
    long t0 = System.nanoTime();
    assertOneLine(weft("train", spec.toString(), "--nnodes", "1", "--rdzv-backend", "etcd", "--rdzv-endpoint", "127.0.0.1:" + nobody,
        "--set", "elastic.failureTimeoutSeconds=2", "--run-dir", dir.resolve("run").toString()), 1,
        "etcd at 127.0.0.1:" + nobody + " did not answer within 12 s", "--rdzv-endpoint");
    assertThat((System.nanoTime() - t0) / 1e9).isLessThan(40);
  }

  @Test
  void aFinishedRunsIdOnEtcdIsRefusedNotSilentlyJoined() {
    org.junit.jupiter.api.Assumptions.assumeTrue(dev.weft.testing.Etcd.available(), dev.weft.testing.Etcd.unavailableReason());
    try (var etcd = dev.weft.testing.Etcd.start(dir.resolve("etcd"))) {
      dev.weft.elastic.EtcdKeyValue.connect(dev.weft.spec.Endpoint.parse(etcd.endpoint()), "", java.time.Duration.ofSeconds(10),
          java.time.Duration.ofSeconds(30)).set("elastic/old/complete", "1");
      assertOneLine(weft("train", spec.toString(), "--nnodes", "1", "--rdzv-backend", "etcd", "--rdzv-endpoint", etcd.endpoint(),
          "--rdzv-id", "old", "--run-dir", dir.resolve("run").toString()), 2, "--rdzv-id 'old'", "already completed",
          "del --prefix weft/elastic/old/");
    }
  }

  @Test
  void badOverridePath() {
    assertOneLine(weft("train", spec.toString(), "--set", "..=1"), 2, "--set", "'..'");
    assertOneLine(weft("train", spec.toString(), "--set", "parallel.=1"), 2, "--set");
  }

  @Test
  void integersRefuseFractionsAndOverflowNamingTheField() {
    assertOneLine(weft("train", spec.toString(), "--set", "parallel.dp=1.5"), 2, "parallel.dp", "whole number", "1.5");
    assertOneLine(weft("train", spec.toString(), "--set", "train.steps=3.9"), 2, "train.steps", "3.9");
    assertOneLine(weft("train", spec.toString(), "--set", "train.steps=1000000000000"), 2, "train.steps", "out of range");
    assertOneLine(weft("train", spec.toString(), "--set", "train.steps=10^12"), 2, "train.steps");
  }

  @Test
  void duplicateYamlKeysAreRefused() throws Exception {
    Files.writeString(spec, "name: t\nparallel:\n  dp: 1\n  dp: 2\n");
    assertOneLine(weft("train", spec.toString()), 2, "'dp' twice", "line 4");
  }

  @Test
  void runDirThatIsAFileOrUnwritable() throws Exception {
    Path file = Files.writeString(dir.resolve("a-file"), "x");
    assertOneLine(weft("train", spec.toString(), "--run-dir", file.toString()), 2, "--run-dir", "is a file");
    assertOneLine(weft("train", spec.toString(), "--run-dir", file.resolve("below").toString()), 2, "--run-dir");
    assertOneLine(weft("train", spec.toString(), "--run-dir", "/proc/weft-h19-run"), 2, "--run-dir", "not writable");
  }

  @Test
  void reportAndConsolidateIntoUnwritablePaths() throws Exception {
    Path run = Files.createDirectories(dir.resolve("run"));
    Files.writeString(run.resolve("metrics.jsonl"), "{\"step\":1,\"loss\":2.0}\n");
    Path file = Files.writeString(dir.resolve("a-file"), "x");
    assertOneLine(weft("report", run.toString(), "--out", file.toString()), 2, "--out");
    assertOneLine(weft("checkpoint", "consolidate", run.toString(), "-o", "/proc/weft-h19/model.safetensors"), 2, "--output");
  }

  // issue 31, item 7: each of these was an exit 1, a NullPointerException, a line naming no field, or accepted

  @Test
  void processCountsAndMeshSizesBelowOneNameTheirFlagOrField() {
    assertOneLine(weft("train", spec.toString(), "--set", "parallel.dp=-1"), 2, "parallel.dp", "-1");
    assertOneLine(weft("train", spec.toString(), "--nproc", "0"), 2, "--nproc", "0");
    assertThat(dir.resolve("runs")).doesNotExist();
  }

  @Test
  void aNullSectionIsRefusedByName() throws Exception {
    Files.writeString(spec, "name: t\ncheckpoint: ~\n");
    assertOneLine(weft("plan", spec.toString()), 2, "checkpoint", "null");
    assertOneLine(weft("plan", spec.toString(), "--set", "checkpoint=~"), 2, "checkpoint");
    assertOneLine(weft("plan", spec.toString(), "--set", "checkpoint.resume=~"), 2, "checkpoint.resume", "null");
  }

  @Test
  void nanAndInfinityInTheYamlNameTheField() throws Exception {
    for (String v : new String[] {".nan", ".inf", "-.inf", "1e400", "NaN"}) {
      Files.writeString(spec, "name: t\ntrain:\n  lr: " + v + "\n");
      assertOneLine(weft("plan", spec.toString()), 2, "train.lr", "finite");
    }
    Files.writeString(spec, "name: t\nmodel:\n  config:\n    size: tiny\n    hidden: 1e400\n");
    assertOneLine(weft("plan", spec.toString()), 2, "model.config.hidden", "finite");
  }

  @Test
  void aMetricsBindThatIsNoAddressIsRefusedUpFront() {
    assertOneLine(weft("plan", spec.toString(), "--set", "metrics.bind=999.1.1.1"), 2, "metrics.bind", "999.1.1.1");
    assertOneLine(weft("plan", spec.toString(), "--set", "metrics.bind=no such host"), 2, "metrics.bind");
    assertThat(weft("plan", spec.toString(), "--set", "metrics.bind=0.0.0.0").code()).isZero();
    assertThat(weft("plan", spec.toString(), "--set", "metrics.bind=::1").code()).isZero();
  }

  @Test
  void aHugeSpecIsRefusedBeforeItIsParsed() throws Exception {
    Files.writeString(spec, "name: t\nmodel:\n  config: {size: tiny, note: \"" + "x".repeat(10 << 20) + "\"}\n");
    long t0 = System.nanoTime();
    assertOneLine(weft("plan", spec.toString()), 2, "spec", "bytes", "at most");
    assertThat((System.nanoTime() - t0) / 1e9).isLessThan(30);
  }

  @Test
  void argumentsPicocliCannotParseAreOneLineNotAUsageScreen() {
    assertOneLine(weft("train", spec.toString(), "--nprc", "2"), 2, "--nprc", "did you mean --nproc", "weft train --help");
    assertOneLine(weft("train", spec.toString(), "--nproc", "abc"), 2, "--nproc", "'abc'");
    assertOneLine(weft("eval", dir.toString(), "--data", "x.npy", "--seq-len", "0"), 2, "--seq-len", "at least 1");
  }

  @Test
  void nativeBacktracesInAMessageAreCutToTheFirstLine() {
    CommandLine cl = WeftMain.commandLine();
    PrintStream old = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    try {
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      new Errors().handleExecutionException(new RuntimeException("Connection reset by peer\nException raised from recvBytes at"
          + " Utils.hpp:679 (most recent call first):\nframe #0: c10::Error::Error() + 0xac\nframe #1: <unknown function>\n"),
          cl, cl.parseArgs("doctor"));
    } finally {
      System.setErr(old);
    }
    String line = err.toString(StandardCharsets.UTF_8).strip();
    assertThat(line.lines().count()).as(line).isEqualTo(1);
    assertThat(line).contains("Connection reset by peer").doesNotContain("frame #");
  }

  @Test
  void unexpectedErrorsShowATraceOnlyWithDebug() {
    CommandLine cl = WeftMain.commandLine();
    Errors errors = new Errors();
    PrintStream old = System.err;
    ByteArrayOutputStream plain = new ByteArrayOutputStream(), debug = new ByteArrayOutputStream();
    try {
      System.setErr(new PrintStream(plain, true, StandardCharsets.UTF_8));
      assertThat(errors.handleExecutionException(new IllegalStateException("boom"), cl, cl.parseArgs("doctor"))).isEqualTo(1);
      System.setErr(new PrintStream(debug, true, StandardCharsets.UTF_8));
      errors.handleExecutionException(new IllegalStateException("boom"), cl, WeftMain.commandLine().parseArgs("doctor", "--debug"));
    } finally {
      System.setErr(old);
    }
    assertThat(plain.toString(StandardCharsets.UTF_8).strip().lines().count()).isEqualTo(1);
    assertThat(debug.toString(StandardCharsets.UTF_8)).contains("boom").contains("\tat ");
  }
}
