package dev.weft.metrics.prometheus;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.Trainer;
import dev.weft.launch.LocalLauncher;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two worker processes with metrics.port set, scraped over HTTP while they train. */
@Tag("slow")
class MetricsEndpointProcessTest {
  @TempDir Path dir;

  @Test
  void eachWorkerServesWeftAndJvmMetricsThatChangeFromStepToStep() throws Exception {
    int port = twoFreePorts();
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    Trainer t = Trainer.model("gpt").set("model.config.layers", 2).set("model.config.hidden", 64).set("model.config.heads", 2)
        .seqLen(32).globalBatch(8).steps(150).dataParallel(2).set("metrics.port", port).runDir(dir).timeout(Duration.ofSeconds(60));
    CompletableFuture<LocalLauncher.Outcome> run =
        CompletableFuture.supplyAsync(() -> t.launch(new PrintStream(console, true, StandardCharsets.UTF_8)));
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    List<Double> rank0Steps = new ArrayList<>();
    Map<String, PromText.Family> last0 = null, last1 = null;
    while (!run.isDone()) {
      Map<String, PromText.Family> f0 = scrape(http, port), f1 = scrape(http, port + 1);
      if (f0 != null && f0.containsKey("weft_step")) {
        double step = PromText.value(f0, "weft_step", Map.of("rank", "0"));
        if (step > 0 && (rank0Steps.isEmpty() || rank0Steps.get(rank0Steps.size() - 1) != step)) rank0Steps.add(step);
        if (step > 0) last0 = f0;
      }
      if (f1 != null && f1.containsKey("weft_step") && PromText.value(f1, "weft_step", Map.of("rank", "1")) > 0) last1 = f1;
      Thread.sleep(150);
    }
    String out = console.toString(StandardCharsets.UTF_8);
    assertThat(run.get().ok()).as(out).isTrue();
    assertThat(rank0Steps).as("distinct steps seen on rank 0's endpoint; console:\n" + out).hasSizeGreaterThanOrEqualTo(3);
    assertThat(rank0Steps).isSorted();
    assertThat(last0).isNotNull();
    assertThat(last1).as("rank 1 serves on metrics.port + 1").isNotNull();
    Map<String, String> r0 = Map.of("run", "weft-run", "rank", "0");
    assertThat(PromText.value(last0, "weft_loss", r0)).isBetween(0.1, 10.0);
    assertThat(PromText.value(last0, "weft_tokens_per_second", r0)).isPositive();
    assertThat(PromText.value(last0, "weft_world_size", r0)).isEqualTo(2);
    assertThat(PromText.value(last0, "weft_memory_bytes", Map.of("kind", "parameters"))).isPositive();
    assertThat(PromText.value(last0, "weft_peak_rss_bytes", r0)).isPositive();
    assertThat(last0.get("weft_loss").type()).isEqualTo("gauge");
    assertThat(last0.get("weft_loss").help()).isNotBlank();
    assertThat(last0.get("weft_steps_total").type()).isEqualTo("counter");
    assertThat(last0.keySet()).anyMatch(k -> k.startsWith("jvm_memory"));
    assertThat(PromText.value(last1, "weft_loss", Map.of("rank", "1"))).isBetween(0.1, 10.0);
    assertThat(Files.readString(dir.resolve(GrafanaDashboard.FILE))).contains("weft_loss");
  }

  private static Map<String, PromText.Family> scrape(HttpClient http, int port) throws InterruptedException {
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
          .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
      return PromText.parse(r.body());
    } catch (IOException notUpYet) {
      return null;
    }
  }

  private static int twoFreePorts() throws IOException {
    for (int attempt = 0; attempt < 50; attempt++) {
      int p;
      try (ServerSocket s = new ServerSocket(0)) {
        p = s.getLocalPort();
      }
      if (p >= 65535) continue;
      try (ServerSocket a = new ServerSocket(p); ServerSocket b = new ServerSocket(p + 1)) {
        return p;
      } catch (IOException taken) {
        // try another pair
      }
    }
    throw new IOException("no two consecutive free ports");
  }
}
