package dev.weft.tracking.progress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.metrics.StepMetrics;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TrainJob progress (KEP-2779) against a TLS server of the test's own: only the injected CA is trusted, the rotating
 * token is read for every post, the body has the upstream schema, a hanging server never holds the training thread, a
 * failing one is retried with backoff. {@link TrainJobProgressProcessTest} runs a real worker against it.
 */
class TrainJobProgressTest {
  @TempDir static Path dir;
  static TestCa ca, otherCa;
  static StatusServer server;

  @BeforeAll
  static void startServer() throws Exception {
    ca = TestCa.make(dir, "weft-test-ca");
    otherCa = TestCa.make(dir, "other-ca");
    server = new StatusServer(ca);
  }

  @AfterAll
  static void stopServer() {
    if (server != null) server.close();
  }

  static Map<String, String> env(int port, Path caPem, Path token) { return StatusServer.env(port, caPem, token); }

  static Path token(String name, String value) throws IOException {
    return Files.writeString(dir.resolve(name), value + "\n");
  }

  /** status.trainerStatus as the vendored TrainJob CRD defines it (v2.3.0): typed, bounded, lastUpdatedTime required. */
  static void assertSchema(JsonNode body) {
    assertThat(body.fieldNames()).toIterable().containsExactly("trainerStatus");
    JsonNode s = body.get("trainerStatus");
    assertThat(s.fieldNames()).toIterable().isSubsetOf(Set.of("progressPercentage", "estimatedRemainingSeconds", "metrics", "lastUpdatedTime"));
    assertThat(s.get("progressPercentage").isInt()).isTrue();
    assertThat(s.get("progressPercentage").asInt()).isBetween(0, 100);
    assertThat(s.get("estimatedRemainingSeconds").isInt()).isTrue();
    assertThat(s.get("estimatedRemainingSeconds").asInt()).isNotNegative();
    assertThat(Instant.parse(s.get("lastUpdatedTime").asText())).isBefore(Instant.now().plusSeconds(1));
    for (JsonNode m : s.get("metrics")) {
      assertThat(m.fieldNames()).toIterable().containsExactlyInAnyOrder("name", "value");
      assertThat(m.get("name").isTextual() && m.get("value").isTextual()).as(m.toString()).isTrue();
      assertThat(m.get("name").asText()).isNotEmpty();
      assertThat(m.get("value").asText()).isNotEmpty();
    }
  }

  static Map<String, String> metrics(JsonNode status) {
    Map<String, String> out = new ConcurrentHashMap<>();
    status.get("metrics").forEach(m -> out.put(m.get("name").asText(), m.get("value").asText()));
    return out;
  }

  static TrainerStatus status(int pct) {
    return new TrainerStatus(pct, 1, List.of(new TrainerStatus.Metric("loss", "1.5")), Instant.now());
  }

  @Test
  void onlyTheInjectedCaIsTrustedAndTheTokenIsReadForEveryPost() throws Exception {
    List<StatusServer.Post> posts = server.posts;
    posts.clear();
    int port = server.port();
    Path tokenFile = token("rotating", "jwt-a");
    ProgressClient good = new ProgressClient(ProgressEndpoint.fromEnv(env(port, ca.caPem(), tokenFile)).orElseThrow(), Duration.ofSeconds(10));
    good.post(status(10));
    Files.writeString(tokenFile, "jwt-b"); // the kubelet rotated the projected token
    good.post(status(20));
    assertThat(posts).extracting(StatusServer.Post::auth).containsExactly("Bearer jwt-a", "Bearer jwt-b");

    ProgressClient wrong = new ProgressClient(ProgressEndpoint.fromEnv(env(port, otherCa.caPem(), tokenFile)).orElseThrow(), Duration.ofSeconds(10));
    assertThatThrownBy(() -> wrong.post(status(30))).isInstanceOf(IOException.class);
    assertThat(posts).as("nothing accepted over a chain the CA did not sign").hasSize(2);

    assertThat(ProgressEndpoint.fromEnv(Map.of())).as("off without the Trainer's variables").isEmpty();
    Map<String, String> off = new java.util.HashMap<>(env(port, ca.caPem(), tokenFile));
    off.put(ProgressEndpoint.OFF_ENV, "off");
    assertThat(ProgressEndpoint.fromEnv(off)).isEmpty();
    Map<String, String> plain = new java.util.HashMap<>(env(port, ca.caPem(), tokenFile));
    plain.put(ProgressEndpoint.URL_ENV, "http://127.0.0.1:" + port + StatusServer.PATH);
    assertThat(ProgressEndpoint.fromEnv(plain)).as("never in clear text").isEmpty();
  }

  @Test
  void aHangingEndpointNeverHoldsTheTrainingThread() throws Exception {
    try (ServerSocket hang = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) { // connects, never answers
      ProgressEndpoint e = new ProgressEndpoint(URI.create("https://127.0.0.1:" + hang.getLocalPort() + StatusServer.PATH), ca.caPem(),
          token("hang-token", "jwt"));
      ProgressClient client = new ProgressClient(e, Duration.ofSeconds(10));
      Set<Thread> posting = ConcurrentHashMap.newKeySet();
      List<Integer> tried = new CopyOnWriteArrayList<>();
      ProgressReporter reporter = new ProgressReporter(s -> {
        posting.add(Thread.currentThread());
        tried.add(s.progressPercentage());
        client.post(s);
      }, "hang", Duration.ofMillis(50), Duration.ofMillis(200), Duration.ofSeconds(1));
      ProgressSink sink = new ProgressSink(reporter, 200);
      long t0 = System.nanoTime();
      for (int step = 1; step <= 200; step++) sink.step(new StepMetrics(step, 2.0, 1e-3, 1, 64, 1, 64, 1), step % 50 == 0 ? 1.9 : null);
      double stepsSeconds = (System.nanoTime() - t0) / 1e9;
      long c0 = System.nanoTime();
      sink.close();
      double closeSeconds = (System.nanoTime() - c0) / 1e9;
      assertThat(posting).as("the reporter has a thread of its own").doesNotContain(Thread.currentThread()).hasSize(1);
      assertThat(tried).as("it tried, and the post hangs").isNotEmpty();
      assertThat(reporter.sent()).isZero();
      // a post that hung on the training thread would take the 10 s deadline at least once
      assertThat(stepsSeconds).as("200 steps handed over").isLessThan(5);
      assertThat(closeSeconds).as("close waits its bound (1 s), not the hanging post (10 s)").isLessThan(6);
    }
  }

  @Test
  void percentAndBackoffEdges() {
    assertThat(ProgressSink.percent(0, 8)).isZero();
    assertThat(ProgressSink.percent(3, 8)).isEqualTo(37);
    assertThat(ProgressSink.percent(8, 8)).isEqualTo(100);
    assertThat(ProgressSink.percent(9, 8)).isEqualTo(100);
    assertThat(status(45).requestBody()).startsWith("{\"trainerStatus\":{\"progressPercentage\":45,\"estimatedRemainingSeconds\":1,"
        + "\"metrics\":[{\"name\":\"loss\",\"value\":\"1.5\"}],\"lastUpdatedTime\":\"");
  }

  @Test
  void reportsAreSpacedByTheIntervalAndTheLatestWins() throws Exception {
    List<Long> at = new CopyOnWriteArrayList<>();
    List<Integer> sent = new CopyOnWriteArrayList<>();
    ProgressReporter r = new ProgressReporter(s -> {
      at.add(System.nanoTime());
      sent.add(s.progressPercentage());
    }, "ok", Duration.ofMillis(300), Duration.ofSeconds(1), Duration.ofSeconds(5));
    long end = System.nanoTime() + Duration.ofMillis(1500).toNanos();
    int pct = 0;
    while (System.nanoTime() < end) {
      r.offer(status(Math.min(99, pct++ / 100)));
      Thread.sleep(0, 100_000);
    }
    r.close(status(100));
    assertThat(sent).as("far fewer posts than offers").hasSizeLessThan(12).last().isEqualTo(100);
    for (int i = 1; i < at.size() - 1; i++) assertThat((at.get(i) - at.get(i - 1)) / 1_000_000).isGreaterThanOrEqualTo(295);
    assertThat(r.sent()).isEqualTo(sent.size());
  }

  @Test
  void aFailingEndpointIsRetriedWithABackoffThatDoubles() throws Exception {
    List<Long> tries = new CopyOnWriteArrayList<>();
    ProgressReporter r = new ProgressReporter(s -> {
      tries.add(System.nanoTime());
      throw new IOException("refused");
    }, "down", Duration.ofMillis(50), Duration.ofMillis(400), Duration.ofMillis(100));
    r.offer(status(1));
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (tries.size() < 5 && System.nanoTime() < deadline) Thread.sleep(20);
    r.close();
    assertThat(tries).as("the report is tried again while it is the latest").hasSizeGreaterThanOrEqualTo(5);
    List<Long> gapsMs = new ArrayList<>();
    for (int i = 1; i < 5; i++) gapsMs.add((tries.get(i) - tries.get(i - 1)) / 1_000_000);
    // waits can only grow under load: 100, 200, 400, then 400 ms at the cap
    assertThat(gapsMs.get(0)).isGreaterThanOrEqualTo(95);
    assertThat(gapsMs.get(1)).isGreaterThanOrEqualTo(195);
    assertThat(gapsMs.get(2)).isGreaterThanOrEqualTo(395);
    assertThat(gapsMs.get(3)).isGreaterThanOrEqualTo(395);
  }
}
