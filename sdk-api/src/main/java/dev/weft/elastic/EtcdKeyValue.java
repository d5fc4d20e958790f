package dev.weft.elastic;

import dev.weft.spec.Endpoint;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.error.WeftException;
import dev.weft.comm.CommException;
import dev.weft.comm.RunToken;
import dev.weft.comm.StoreCalls;
import dev.weft.metrics.MetricsJson;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link KeyValue} on etcd v3 through its HTTP/JSON gateway ({@code /v3/kv/put}, {@code range}, {@code txn};
 * keys and values base64): set-if-absent is a transaction on {@code create_revision == 0}, add a
 * compare-and-swap on the key's {@code mod_revision}. Every key lives under {@code weft/} and the run token's
 * prefix. Calls go through {@link StoreCalls} like the TCPStore's: one at a time, each with a deadline; within
 * it a refused connection or an etcd without a leader is retried, and a call past it marks etcd lost.
 */
public final class EtcdKeyValue implements KeyValue {
  private static final Base64.Encoder B64 = Base64.getEncoder();
  private static final Base64.Decoder UNB64 = Base64.getDecoder();
  private static final long RETRY_MS = 200;

  private final URI base;
  private final String name;
  private final String root;
  private final StoreCalls calls;
  private final HttpClient http;
  /** The last value and mod_revision this client saw per counter: its own heartbeats then take one round trip. */
  private final Map<String, long[]> counters = new ConcurrentHashMap<>();

  private EtcdKeyValue(URI base, String name, String root, StoreCalls calls) {
    this.base = base;
    this.name = name;
    this.root = root;
    this.calls = calls;
    this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(calls.deadline()).build();
  }

  /**
   * A client of etcd at {@code endpoint} for the run of {@code token} ("" for none), each call within
   * {@code deadline}; fails with one line when etcd does not answer within {@code connectTimeout}.
   */
  public static EtcdKeyValue connect(Endpoint endpoint, String token, Duration deadline, Duration connectTimeout) {
    URI base;
    try {
      base = new URI("http", null, endpoint.host(), endpoint.port(), "/v3/kv/", null, null);
    } catch (URISyntaxException e) {
      throw new WeftException("--rdzv-endpoint '" + endpoint + "' is not a usable etcd HOST:PORT: " + e.getReason());
    }
    String name = "etcd at " + endpoint;
    EtcdKeyValue kv = new EtcdKeyValue(base, name, "weft/" + RunToken.keyPrefix(token), new StoreCalls(name, deadline));
    kv.probe(connectTimeout);
    return kv;
  }

  /** One read within {@code within}, retried while etcd refuses or has no leader: is anybody there? */
  private void probe(Duration within) {
    try {
      post("range", "get 'probe'", keyOnly("probe"), within);
    } catch (StoreCalls.StoreUnreachableException e) {
      throw new CommException(name + " did not answer within " + within.toSeconds()
          + " s; start etcd there (see docs/elastic.md) or fix --rdzv-endpoint / elastic.rdzvEndpoint");
    }
  }

  @Override public void set(String key, String value) {
    ObjectNode put = MetricsJson.MAPPER.createObjectNode().put("key", key(key)).put("value", enc(value));
    post("put", "set '" + key + "'", put);
    counters.remove(key);
  }

  @Override public String getOrNull(String key) {
    JsonNode kv = first(post("range", "get '" + key + "'", keyOnly(key)));
    return kv == null ? null : dec(kv.path("value").asText(""));
  }

  @Override public long add(String key, long delta) {
    if (delta == 0) {
      String v = getOrNull(key);
      return v == null ? 0 : parse(key, v);
    }
    long[] seen = counters.getOrDefault(key, new long[] {0, 0}); // {value, mod_revision}; 0: absent
    while (true) {
      long next = seen[0] + delta;
      ObjectNode cmp = compare(key, seen[1] == 0 ? "CREATE" : "MOD", seen[1] == 0 ? "create_revision" : "mod_revision", seen[1]);
      JsonNode r = post("txn", "add '" + key + "'", txn(cmp, putOp(key, String.valueOf(next)), key));
      if (r.path("succeeded").asBoolean(false)) {
        long rev = r.path("header").path("revision").asLong(0);
        counters.put(key, new long[] {next, rev});
        return next;
      }
      JsonNode kv = first(r.path("responses").path(0).path("response_range"));
      seen = kv == null ? new long[] {0, 0} : new long[] {parse(key, dec(kv.path("value").asText(""))), kv.path("mod_revision").asLong(0)};
    }
  }

  @Override public String setIfAbsent(String key, String value) {
    JsonNode r = post("txn", "compare-set '" + key + "'", txn(compare(key, "CREATE", "create_revision", 0), putOp(key, value), key));
    if (r.path("succeeded").asBoolean(false)) return value;
    JsonNode kv = first(r.path("responses").path(0).path("response_range"));
    return kv == null ? value : dec(kv.path("value").asText(""));
  }

  private ObjectNode keyOnly(String key) { return MetricsJson.MAPPER.createObjectNode().put("key", key(key)); }

  private ObjectNode putOp(String key, String value) {
    ObjectNode op = MetricsJson.MAPPER.createObjectNode();
    op.putObject("request_put").put("key", key(key)).put("value", enc(value));
    return op;
  }

  private ObjectNode compare(String key, String target, String field, long revision) {
    return MetricsJson.MAPPER.createObjectNode().put("key", key(key)).put("result", "EQUAL").put("target", target)
        .put(field, String.valueOf(revision));
  }

  /** If {@code cmp} holds, {@code success}; otherwise read {@code key} back. */
  private ObjectNode txn(ObjectNode cmp, ObjectNode success, String key) {
    ObjectNode t = MetricsJson.MAPPER.createObjectNode();
    t.putArray("compare").add(cmp);
    t.putArray("success").add(success);
    t.putArray("failure").addObject().set("request_range", keyOnly(key));
    return t;
  }

  private static JsonNode first(JsonNode range) {
    JsonNode kvs = range.path("kvs");
    return kvs.isArray() && !kvs.isEmpty() ? kvs.get(0) : null;
  }

  private String key(String key) { return enc(root + key); }

  private static String enc(String s) { return B64.encodeToString(s.getBytes(StandardCharsets.UTF_8)); }

  private static String dec(String b64) { return new String(UNB64.decode(b64), StandardCharsets.UTF_8); }

  private static long parse(String key, String v) { return dev.weft.comm.StoreValues.parseLong(key, v); }

  private JsonNode post(String op, String what, ObjectNode body) { return post(op, what, body, calls.deadline()); }

  private JsonNode post(String op, String what, ObjectNode body, Duration limit) {
    HttpRequest req = HttpRequest.newBuilder(base.resolve(op)).timeout(calls.deadline())
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build();
    return calls.call(what, limit, () -> send(req, what));
  }

  /** Retries what a healthy etcd recovers from (a refused connection, no leader yet) until the deadline interrupts it. */
  private JsonNode send(HttpRequest req, String what) {
    while (true) {
      try {
        HttpResponse<String> res = http.send(req, HttpResponse.BodyHandlers.ofString());
        if (res.statusCode() == 200) return MetricsJson.MAPPER.readTree(res.body());
        if (res.statusCode() < 500) {
          throw new CommException(name + " refused " + what + " (HTTP " + res.statusCode() + "): " + errorOf(res.body()));
        }
      } catch (IOException e) {
        // refused, reset or timed out: etcd restarting or the link down; the deadline decides
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CommException("interrupted: " + what);
      }
      try {
        Thread.sleep(RETRY_MS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CommException("interrupted: " + what);
      }
    }
  }

  private static String errorOf(String body) {
    try {
      return MetricsJson.MAPPER.readTree(body).path("error").asText(body);
    } catch (IOException e) {
      return body;
    }
  }
}
