package dev.weft.metrics.prometheus;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.launch.FreePort;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Idle and slow HTTP clients cannot hold off a scrape of {@code /metrics} (issue 31: 16 of them did for ~50 s). */
class MetricsEndpointSlowClientsTest {
  /** A scrape on a loaded machine answers well within this; the old server needed ~50 s past 16 idle clients. */
  private static final Duration SCRAPE_DEADLINE = Duration.ofSeconds(10);
  private final List<Socket> clients = new ArrayList<>();

  @AfterEach
  void closeClients() throws Exception {
    for (Socket s : clients) s.close();
  }

  private MetricsEndpoint endpoint() {
    return MetricsEndpoint.startIfEnabled(new WeftMetrics("slow-clients", 0, "adamw"), "127.0.0.1", FreePort.find(), 0);
  }

  /** {@code idle} connections that send nothing, then {@code slow} that send half a request line and stop. */
  private void idleAndSlowClients(int port, int idle, int slow) throws Exception {
    for (int i = 0; i < idle + slow; i++) {
      Socket s = new Socket();
      clients.add(s);
      s.connect(new InetSocketAddress("127.0.0.1", port), (int) SCRAPE_DEADLINE.toMillis()); // the old server's backlog filled up here
      if (i < idle) continue;
      OutputStream out = s.getOutputStream();
      out.write("GET /metr".getBytes(StandardCharsets.US_ASCII));
      out.flush();
    }
  }

  private static HttpResponse<String> scrape(int port, String path) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(SCRAPE_DEADLINE).build();
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(SCRAPE_DEADLINE).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aScrapeAnswersPastSixteenIdleAndFortyEightSlowConnections() throws Exception {
    try (MetricsEndpoint e = endpoint()) {
      idleAndSlowClients(e.port(), 16, 48); // twice the connection threads: the oldest waiting ones are closed to make room
      for (int i = 0; i < 3; i++) {
        long t0 = System.nanoTime();
        HttpResponse<String> r = scrape(e.port(), "/metrics");
        double seconds = (System.nanoTime() - t0) / 1e9;
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
        assertThat(r.body()).contains("weft_").contains("jvm_");
        assertThat(seconds).as("scrape seconds").isLessThan(SCRAPE_DEADLINE.toSeconds());
      }
      assertThat(scrape(e.port(), "/nothing").statusCode()).isEqualTo(404);
    }
  }

  @Test
  void aClientThatSendsNoRequestIsClosedAfterTheHeadDeadline() throws Exception {
    try (MetricsEndpoint e = endpoint(); Socket idle = new Socket("127.0.0.1", e.port())) {
      idle.setSoTimeout((int) ScrapeServer.HEAD_DEADLINE.multipliedBy(6).toMillis());
      long t0 = System.nanoTime();
      assertThat(idle.getInputStream().read()).isEqualTo(-1); // the server hung up
      assertThat((System.nanoTime() - t0) / 1e9).isGreaterThanOrEqualTo(ScrapeServer.HEAD_DEADLINE.toSeconds() - 1.0);
    }
  }
}
