package dev.weft.tracking.progress;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/** A stand-in for Trainer's status server: HTTPS with the test CA's server certificate; records every request, answers 200. */
final class StatusServer implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String PATH = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/team/trainjobs/tiny/status";

  record Post(String method, String path, String auth, String contentType, JsonNode body, Instant at) {}

  final List<Post> posts = new CopyOnWriteArrayList<>();
  private final HttpsServer server;

  StatusServer(TestCa ca) throws Exception {
    server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(ca.serverContext()));
    server.createContext("/", x -> {
      byte[] body = x.getRequestBody().readAllBytes();
      posts.add(new Post(x.getRequestMethod(), x.getRequestURI().getPath(), x.getRequestHeaders().getFirst("Authorization"),
          x.getRequestHeaders().getFirst("Content-Type"), JSON.readTree(body), Instant.now()));
      byte[] ok = "{}".getBytes(StandardCharsets.UTF_8);
      x.sendResponseHeaders(200, ok.length);
      x.getResponseBody().write(ok);
      x.close();
    });
    server.start();
  }

  int port() { return server.getAddress().getPort(); }

  /** What the Trainer's TrainJobStatus plugin injects, pointing here. */
  Map<String, String> env(Path caPem, Path token) { return env(port(), caPem, token); }

  static Map<String, String> env(int port, Path caPem, Path token) {
    return Map.of(ProgressEndpoint.URL_ENV, "https://127.0.0.1:" + port + PATH, ProgressEndpoint.CA_CERT_ENV, caPem.toString(),
        ProgressEndpoint.TOKEN_ENV, token.toString());
  }

  @Override
  public void close() { server.stop(0); }
}
