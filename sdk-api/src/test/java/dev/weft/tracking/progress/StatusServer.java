package dev.weft.tracking.progress;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A stand-in for Trainer's status server: HTTPS with the test CA's server certificate; records every request, answers 200.
 * {@link #main} runs one as a process of its own (inside a network namespace, as the Trainer controller's Service).
 */
public final class StatusServer implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String PATH = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/team/trainjobs/tiny/status";

  public record Post(String method, String path, String auth, String contentType, JsonNode body, Instant at) {}

  final List<Post> posts = new CopyOnWriteArrayList<>();
  private final HttpsServer server;

  StatusServer(TestCa ca) throws Exception { this(ca, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), null); }

  /** Listening on {@code at}; each request also appended to {@code log} (one JSON object a line) when not null. */
  private StatusServer(TestCa ca, InetSocketAddress at, Path log) throws Exception {
    server = HttpsServer.create(at, 0);
    server.setHttpsConfigurator(new HttpsConfigurator(ca.serverContext()));
    server.createContext("/", x -> {
      byte[] body = x.getRequestBody().readAllBytes();
      Post p = new Post(x.getRequestMethod(), x.getRequestURI().getPath(), x.getRequestHeaders().getFirst("Authorization"),
          x.getRequestHeaders().getFirst("Content-Type"), JSON.readTree(body), Instant.now());
      posts.add(p);
      if (log != null) append(log, p);
      byte[] ok = "{}".getBytes(StandardCharsets.UTF_8);
      x.sendResponseHeaders(200, ok.length);
      x.getResponseBody().write(ok);
      x.close();
    });
    server.start();
  }

  int port() { return server.getAddress().getPort(); }

  /**
   * {@code StatusServer DIR PORT}: a fresh CA ({@code DIR/status-ca.crt}, the file the Trainer mounts as {@code ca.crt})
   * and a server on all addresses at {@code PORT} whose certificate it signed (for {@code localhost}, 127.0.0.1 and
   * {@code SAN_HOST}); each request appended to {@code DIR/posts.jsonl}; {@code DIR/ready} once it listens. Ends by
   * itself after 5 minutes.
   */
  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    TestCa ca = TestCa.make(dir, "status-ca", args.length > 2 ? args[2] : "localhost");
    try (StatusServer s = new StatusServer(ca, new InetSocketAddress(Integer.parseInt(args[1])), dir.resolve(POSTS))) {
      Files.writeString(dir.resolve("ready"), "ready\n");
      Thread.sleep(Duration.ofMinutes(5).toMillis());
    }
  }

  /** The file {@link #main} appends requests to. */
  public static final String POSTS = "posts.jsonl";

  /** The requests {@link #main} recorded in {@code file}. */
  public static List<Post> read(Path file) throws IOException {
    List<Post> out = new ArrayList<>();
    if (!Files.exists(file)) return out;
    for (String line : Files.readAllLines(file)) {
      JsonNode n = JSON.readTree(line);
      out.add(new Post(n.get("method").asText(), n.get("path").asText(), n.get("auth").asText(null), n.get("contentType").asText(null),
          n.get("body"), Instant.parse(n.get("at").asText())));
    }
    return out;
  }

  private static synchronized void append(Path log, Post p) throws IOException {
    var n = JSON.createObjectNode().put("method", p.method()).put("path", p.path()).put("auth", p.auth())
        .put("contentType", p.contentType()).put("at", p.at().toString());
    n.set("body", p.body());
    Files.writeString(log, JSON.writeValueAsString(n) + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }

  /** What the Trainer's TrainJobStatus plugin injects, pointing here. */
  Map<String, String> env(Path caPem, Path token) { return env(port(), caPem, token); }

  static Map<String, String> env(int port, Path caPem, Path token) {
    return Map.of(ProgressEndpoint.URL_ENV, "https://127.0.0.1:" + port + PATH, ProgressEndpoint.CA_CERT_ENV, caPem.toString(),
        ProgressEndpoint.TOKEN_ENV, token.toString());
  }

  @Override
  public void close() { server.stop(0); }
}
