package dev.weft.metrics.prometheus;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A small HTTP/1.1 server for {@code GET /metrics} that idle or slow clients cannot block: a real listen backlog,
 * a bounded pool of connection threads, a deadline for each request's head, and, when every thread is taken, the
 * longest-open connection closed to make room (a scraper sends its request at once, so it is never the oldest).
 * One request per connection ({@code Connection: close}). Replaces the exporter's server (backlog 3, and a full pool
 * blocked its accept loop).
 */
final class ScrapeServer implements AutoCloseable {
  static final int BACKLOG = 128;
  static final int MAX_CONNECTIONS = 32;
  static final Duration HEAD_DEADLINE = Duration.ofSeconds(5);
  private static final int MAX_HEAD_BYTES = 8192;

  private final ServerSocket listener;
  private final PrometheusRegistry registry;
  private final ExecutorService pool;
  private final LinkedHashSet<Socket> waiting = new LinkedHashSet<>(); // connections whose head has not arrived, oldest first
  private final Thread acceptor;
  private volatile boolean closed;

  private ScrapeServer(ServerSocket listener, PrometheusRegistry registry) {
    this.listener = listener;
    this.registry = registry;
    ThreadPoolExecutor p = new ThreadPoolExecutor(MAX_CONNECTIONS, MAX_CONNECTIONS, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
        r -> daemon(r, "weft-metrics-conn"));
    p.allowCoreThreadTimeOut(true);
    this.pool = p;
    this.acceptor = daemon(this::acceptLoop, "weft-metrics-accept");
  }

  /** Serves {@code registry} on {@code bind:port} (0: any free port) until closed. */
  static ScrapeServer start(PrometheusRegistry registry, InetAddress bind, int port) throws IOException {
    ServerSocket s = new ServerSocket();
    s.setReuseAddress(true);
    s.bind(new InetSocketAddress(bind, port), BACKLOG);
    ScrapeServer server = new ScrapeServer(s, registry);
    server.acceptor.start();
    return server;
  }

  int port() { return listener.getLocalPort(); }

  private void acceptLoop() {
    while (!closed) {
      Socket c;
      try {
        c = listener.accept();
      } catch (IOException e) {
        if (closed) return;
        continue; // a connection reset before accept; keep serving
      }
      synchronized (waiting) {
        if (waiting.size() >= MAX_CONNECTIONS) closeQuietly(removeOldest());
        waiting.add(c);
      }
      pool.execute(() -> serve(c));
    }
  }

  private Socket removeOldest() {
    Iterator<Socket> it = waiting.iterator();
    Socket oldest = it.next();
    it.remove();
    return oldest;
  }

  private void serve(Socket c) {
    try (c) {
      String requestLine = readHead(c);
      synchronized (waiting) {
        waiting.remove(c); // answering now: never the one closed to make room
      }
      if (requestLine == null) return;
      String[] parts = requestLine.split(" ");
      if (parts.length < 2 || !"GET".equals(parts[0])) {
        respond(c, "405 Method Not Allowed", "text/plain; charset=utf-8", "only GET /metrics\n".getBytes(StandardCharsets.UTF_8));
        return;
      }
      String path = parts[1].split("\\?", 2)[0];
      if ("/metrics".equals(path) || "/".equals(path)) {
        ByteArrayOutputStream body = new ByteArrayOutputStream(16384);
        PrometheusTextFormatWriter.create().write(body, registry.scrape());
        respond(c, "200 OK", PrometheusTextFormatWriter.CONTENT_TYPE, body.toByteArray());
      } else {
        respond(c, "404 Not Found", "text/plain; charset=utf-8", "see /metrics\n".getBytes(StandardCharsets.UTF_8));
      }
    } catch (IOException | RuntimeException e) {
      // a client that left, timed out or was closed to make room: nothing to answer
    } finally {
      synchronized (waiting) {
        waiting.remove(c);
      }
    }
  }

  /** The request line, once the whole head has arrived within the deadline; null for a client that sent nothing. */
  private static String readHead(Socket c) throws IOException {
    long deadline = System.nanoTime() + HEAD_DEADLINE.toNanos();
    InputStream in = c.getInputStream();
    byte[] head = new byte[MAX_HEAD_BYTES];
    int n = 0;
    while (n < head.length) {
      long leftMs = (deadline - System.nanoTime()) / 1_000_000;
      if (leftMs <= 0) return null;
      c.setSoTimeout((int) leftMs);
      int r = in.read(head, n, head.length - n);
      if (r < 0) return null;
      n += r;
      String s = new String(head, 0, n, StandardCharsets.ISO_8859_1);
      if (s.contains("\r\n\r\n") || s.contains("\n\n")) return s.lines().findFirst().orElse("");
    }
    return null; // a head this large is no scrape
  }

  private static void respond(Socket c, String status, String type, byte[] body) throws IOException {
    OutputStream out = c.getOutputStream();
    out.write(("HTTP/1.1 " + status + "\r\nContent-Type: " + type + "\r\nContent-Length: " + body.length
        + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
    out.write(body);
    out.flush();
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // already gone
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      listener.close();
    } catch (IOException ignored) {
      // already closed
    }
    synchronized (waiting) {
      waiting.forEach(ScrapeServer::closeQuietly);
      waiting.clear();
    }
    pool.shutdownNow();
  }
}
