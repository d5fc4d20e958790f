package dev.weft.s3;

import dev.weft.testing.WeftCli;
import dev.weft.testing.WeftCli.Output;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.cli.WeftMain;
import dev.weft.launch.JavaCommand;
import dev.weft.s3.fetch.FetchListener;
import dev.weft.s3.fetch.FetchSource;
import dev.weft.s3.fetch.LocalSource;
import dev.weft.s3.fetch.Fetcher;
import dev.weft.s3.fetch.SourceObject;
import java.io.FilterInputStream;
import java.io.InputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@code weft fetch} against a real S3-compatible server: a Hugging Face-style model and a dataset land byte for byte;
 * a fetch process killed (SIGKILL) mid-object is finished by a rerun that continues its partial file; a copy stopped mid-object is finished by a rerun that skips what was complete and continues the partial file; a
 * damaged partial file is copied again; a broken transfer is tried again from its partial file; an object that does
 * not match its checksum is refused and not left behind.
 */
class FetchTest {
  private static final String BIG = "model-00001-of-00002.safetensors";
  private static GatedBlobStore store;
  private static S3Server server;
  private static S3Client s3;
  private static final Map<String, byte[]> MODEL = new LinkedHashMap<>(), DATASET = new LinkedHashMap<>();
  @TempDir Path dir;

  @BeforeAll
  static void upload() throws Exception {
    server = S3Server.start(b -> store = new GatedBlobStore(b, "gated/m/" + BIG, 1 << 20), "hub");
    s3 = server.client();
    Random r = new Random(7);
    MODEL.put("config.json", "{\"model_type\": \"llama\", \"hidden_size\": 64}".getBytes(StandardCharsets.UTF_8));
    MODEL.put("tokenizer.json", bytes(r, 20_000));
    MODEL.put("model-00001-of-00002.safetensors", bytes(r, 3 << 20));
    MODEL.put("model-00002-of-00002.safetensors", bytes(r, 1 << 20));
    MODEL.put("empty.txt", new byte[0]);
    DATASET.put("README.md", "# tiny".getBytes(StandardCharsets.UTF_8));
    DATASET.put("data/train-00000-of-00002.parquet", bytes(r, 300_000));
    DATASET.put("data/train-00001-of-00002.parquet", bytes(r, 200_000));
    MODEL.forEach((k, v) -> put("models/tiny/" + k, v, Map.of()));
    DATASET.forEach((k, v) -> put("datasets/tiny/" + k, v, Map.of()));
    s3.putObject(b -> b.bucket("hub").key("datasets/tiny/data/"), RequestBody.empty()); // a folder marker, as consoles create
  }

  @AfterAll
  static void stop() throws Exception {
    s3.close();
    server.close();
  }

  private static byte[] bytes(Random r, int n) {
    byte[] b = new byte[n];
    r.nextBytes(b);
    return b;
  }

  private static void put(String key, byte[] data, Map<String, String> metadata) {
    s3.putObject(b -> b.bucket("hub").key(key).metadata(metadata), RequestBody.fromBytes(data));
  }


  private static void assertSame(Path into, Map<String, byte[]> expected) throws IOException {
    for (Map.Entry<String, byte[]> e : expected.entrySet()) {
      assertThat(Files.readAllBytes(into.resolve(e.getKey()))).as(e.getKey()).isEqualTo(e.getValue());
    }
    try (Stream<Path> files = Files.walk(into)) {
      assertThat(files.filter(Files::isRegularFile).map(f -> into.relativize(f).toString()))
          .containsExactlyInAnyOrderElementsOf(Stream.concat(expected.keySet().stream(), Stream.of(".weft-fetch.json")).toList());
    }
  }

  private static S3FetchSource source(String prefix) {
    S3Settings s = S3Settings.fromEnvironment();
    return new S3FetchSource(S3Location.parse("s3://hub/" + prefix, "SRC"), s, new S3Objects(s3, "hub", s));
  }

  @Test
  void copiesAModelAndADatasetAndARerunSkipsThem() throws Exception {
    Output model = WeftCli.capture("fetch", "s3://hub/models/tiny", dir.resolve("model").toString());
    assertThat(model.code()).as(model.err()).isZero();
    assertThat(model.out()).contains("5 objects copied");
    assertSame(dir.resolve("model"), MODEL);
    Output data = WeftCli.capture("fetch", "s3://hub/datasets/tiny/", dir.resolve("data").toString());
    assertThat(data.code()).as(data.err()).isZero();
    assertSame(dir.resolve("data"), DATASET);
    Output again = WeftCli.capture("fetch", "s3://hub/models/tiny", dir.resolve("model").toString());
    assertThat(again.out()).contains("0 objects copied (0 bytes), 5 already complete");
    Output local = WeftCli.capture("fetch", dir.resolve("model").toString(), dir.resolve("copy").toString()); // a PVC path
    assertThat(local.code()).as(local.err()).isZero();
    assertSame(dir.resolve("copy"), MODEL);
  }

  @Test
  void aCopyStoppedMidObjectIsFinishedByARerun() throws Exception {
    Path into = dir.resolve("model");
    String big = "model-00001-of-00002.safetensors";
    FetchListener killer = new FetchListener() {
      @Override public void bytes(SourceObject o, long done) {
        if (o.name().equals(big) && done >= 1 << 20) throw new IllegalStateException("killed");
      }
    };
    assertThatThrownBy(() -> new Fetcher(source("models/tiny"), killer).fetchInto(into)).hasMessage("killed");
    Path partial = into.resolve(big + ".partial");
    assertThat(Files.size(partial)).isBetween(1L << 20, (3L << 20) - 1);
    assertThat(into.resolve(big)).doesNotExist();
    long[] resumedFrom = {-1};
    Fetcher.Result r = new Fetcher(source("models/tiny"), new FetchListener() {
      @Override public void bytes(SourceObject o, long done) {
        if (o.name().equals(big) && resumedFrom[0] < 0) resumedFrom[0] = done;
      }
    }).fetchInto(into);
    assertThat(resumedFrom[0]).as("the partial file continues").isGreaterThan(1L << 20);
    assertThat(r.skipped()).as("objects complete before the stop").isPositive();
    assertSame(into, MODEL);

    // a partial file whose bytes were damaged (same size) fails the ETag's MD5 and is copied again from the start
    Files.delete(into.resolve(big));
    Files.write(partial, new byte[1 << 20]);
    Output again = WeftCli.capture("fetch", "s3://hub/models/tiny", into.toString());
    assertThat(again.code()).as(again.err()).isZero();
    assertThat(again.out()).contains("1 objects copied");
    assertSame(into, MODEL);
  }

  @Test
  @Tag("slow") // a child JVM
  void aFetchProcessKilledMidObjectIsFinishedByARerun() throws Exception {
    MODEL.forEach((k, v) -> put("gated/m/" + k, v, Map.of()));
    Path into = dir.resolve("model"), log = dir.resolve("child.log"), partial = into.resolve(BIG + ".partial");
    ProcessBuilder pb = new ProcessBuilder(JavaCommand.of(List.of("dev.weft.cli.WeftMain", "fetch", "s3://hub/gated/m", into.toString())))
        .redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().putAll(Map.of("AWS_ENDPOINT_URL", server.endpoint.toString(), "AWS_ACCESS_KEY_ID", S3Server.ACCESS,
        "AWS_SECRET_ACCESS_KEY", S3Server.SECRET, "AWS_REGION", "us-east-1"));
    store.close(); // the big shard stalls after 1 MiB until the gate opens
    Process child = pb.start();
    try {
      long deadline = System.nanoTime() + 120_000_000_000L;
      while (!Files.exists(partial) || Files.size(partial) < 1 << 19) {
        assertThat(child.isAlive() && System.nanoTime() < deadline).as("the child is mid-object in time: %s", Files.exists(log) ? Files.readString(log) : "").isTrue();
        Thread.sleep(20);
      }
      child.destroyForcibly().waitFor(); // SIGKILL: nothing of the fetch gets to clean up
    } finally {
      child.destroyForcibly();
      store.open();
    }
    long killedAt = Files.size(partial);
    assertThat(into.resolve(BIG)).doesNotExist();
    long[] resumedFrom = {-1};
    Fetcher.Result r = new Fetcher(source("gated/m"), new FetchListener() {
      @Override public void bytes(SourceObject o, long done) {
        if (o.name().equals(BIG) && resumedFrom[0] < 0) resumedFrom[0] = done;
      }
    }).fetchInto(into);
    assertThat(resumedFrom[0]).as("the partial file continues").isGreaterThan(killedAt);
    assertThat(r.skipped()).as("objects complete before the kill").isPositive();
    assertSame(into, MODEL);
  }

  @Test
  void aTransferThatBreaksIsTriedAgainFromItsPartialFile() throws Exception {
    Path src = dir.resolve("pvc");
    MODEL.forEach((k, v) -> write(src.resolve(k), v));
    LocalSource files = new LocalSource(src);
    List<Long> opens = new ArrayList<>();
    FetchSource flaky = new FetchSource() { // the first stream of the big shard breaks after 1 MiB, as a dropped connection does
      @Override public List<SourceObject> list() throws IOException { return files.list(); }
      @Override public String describe() { return files.describe(); }
      @Override public InputStream open(SourceObject o, long offset) throws IOException {
        InputStream in = files.open(o, offset);
        if (!o.name().startsWith("model-00001")) return in;
        opens.add(offset);
        if (opens.size() > 1) return in;
        return new FilterInputStream(in) {
          long read;
          @Override public int read(byte[] b, int off, int len) throws IOException {
            if (read >= 1 << 20) throw new IOException("connection reset");
            int n = super.read(b, off, Math.min(len, 1 << 16));
            read += Math.max(n, 0);
            return n;
          }
        };
      }
    };
    Path into = dir.resolve("model");
    assertThat(new Fetcher(flaky, FetchListener.NONE).fetchInto(into).copied()).isEqualTo(MODEL.size());
    assertThat(opens).containsExactly(0L, 1L << 20);
    assertSame(into, MODEL);
  }

  private static void write(Path f, byte[] b) {
    try {
      Files.createDirectories(f.getParent());
      Files.write(f, b);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void anObjectThatDoesNotMatchItsChecksumIsRefused() throws Exception {
    put("bad/config.json", MODEL.get("config.json"), Map.of());
    put("bad/model.safetensors", MODEL.get("model-00002-of-00002.safetensors"), Map.of("sha256", "0".repeat(64)));
    Path into = dir.resolve("bad");
    Output r = WeftCli.capture("fetch", "s3://hub/bad", into.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().strip()).doesNotContain("\n").contains("model.safetensors is corrupt").contains("SHA-256");
    assertThat(into.resolve("model.safetensors")).doesNotExist();
    assertThat(into.resolve("model.safetensors.partial")).doesNotExist();
    assertThat(into.resolve("config.json")).exists();
  }

  @Test
  void mistakesAreOneLine() {
    assertThat(WeftCli.capture("--help").out()).contains("fetch");
    assertThat(WeftCli.capture("fetch", "--help").out()).contains("SRC").contains(".partial").contains("exit 2");
    Output missing = WeftCli.capture("fetch", "s3://nobucket/models", dir.resolve("m").toString());
    assertThat(missing.code()).isEqualTo(2);
    assertThat(missing.err().strip()).doesNotContain("\n").contains("bucket 'nobucket' does not exist");
    Output empty = WeftCli.capture("fetch", "s3://hub/nothing-here", dir.resolve("m").toString());
    assertThat(empty.code()).isEqualTo(2);
    assertThat(empty.err()).contains("holds no objects");
    Output notDir = WeftCli.capture("fetch", dir.resolve("absent").toString(), dir.resolve("m").toString());
    assertThat(notDir.code()).isEqualTo(2);
    assertThat(notDir.err()).contains("is not a directory");
  }
}
