package dev.weft.tracking;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.checkpoint.Sha256;
import dev.weft.data.BuiltinSources;
import dev.weft.data.DataSources;
import dev.weft.data.ShardIndex;
import dev.weft.data.TokenSource;
import dev.weft.spec.DataSpec;
import dev.weft.spec.SpecIO;
import dev.weft.spec.TrainingSpec;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * What a run was made from, as the {@code lineage.json} fields it fills: the spec and its SHA-256 (of its canonical
 * JSON), Weft's version and commit, the base model ({@code model.pretrained}: each {@code *.safetensors} file's
 * SHA-256 and one over their names and hashes), its tokenizer files, and each data source's files (token shards with
 * their {@code index.json}, a {@code .npy} or text file) with the samples one epoch of it holds. Pure reading; hashes
 * come from {@link FileHash} (reused when the file is unchanged).
 */
final class LineageInputs {
  private static final List<String> TOKENIZER_FILES = List.of("tokenizer.json", "tokenizer_config.json", "tokenizer.model");

  private LineageInputs() {}

  static ObjectNode of(TrainingSpec spec, Map<String, FileHash> known) {
    ObjectNode n = Lineage.MAPPER.createObjectNode();
    String json = SpecIO.toJson(spec);
    n.set("spec", SpecIO.toTree(spec));
    n.put("spec_sha256", sha256(json.getBytes(StandardCharsets.UTF_8)));
    ObjectNode weft = n.putObject("weft");
    weft.put("version", version());
    weft.put("commit", commit());
    if (spec.model().hasPretrained()) {
      Path base = Path.of(spec.model().pretrained());
      n.set("base_model", files(base, list(base, ".safetensors"), known));
      n.set("tokenizer", files(base, TOKENIZER_FILES.stream().map(base::resolve).filter(Files::isRegularFile).toList(), known));
    }
    ArrayNode data = n.putArray("data");
    for (DataSpec.Weighted w : spec.data().mix()) data.add(source(w, known));
    return n;
  }

  private static ObjectNode source(DataSpec.Weighted w, Map<String, FileHash> known) {
    ObjectNode s = Lineage.MAPPER.createObjectNode();
    s.put("source", w.source());
    s.put("weight", w.weight());
    DataSources.Resolved r = DataSources.resolve(w.source());
    Path loc = Path.of(r.location());
    List<Path> files = new ArrayList<>();
    if (r.factory() instanceof BuiltinSources.Shards) {
      ShardIndex ix = ShardIndex.read(loc);
      if (ix.tokenizer() != null) s.put("tokenizer", ix.tokenizer());
      files.add(loc.resolve(ShardIndex.FILE));
      for (ShardIndex.Shard sh : ix.shards()) {
        files.add(loc.resolve(sh.file()));
        if (sh.flags() != null) files.add(loc.resolve(sh.flags()));
      }
    } else if (r.factory() instanceof BuiltinSources.Text || r.factory() instanceof BuiltinSources.Numpy) {
      files.add(loc);
    }
    ArrayNode arr = s.putArray("files");
    for (Path f : files) arr.add(Lineage.MAPPER.valueToTree(FileHash.of(f, known)));
    return s;
  }

  /** The samples in one epoch of the training split ({@code null}: a source without end, such as {@code arithmetic}). */
  static Long epochSamples(TrainingSpec spec) {
    try {
      long n = TokenSource.of(spec.data(), spec.train().seed()).distinctSamples();
      return n == Long.MAX_VALUE ? null : n;
    } catch (RuntimeException e) {
      return null; // a source that cannot be opened again here: no epoch split
    }
  }

  private static ObjectNode files(Path dir, List<Path> files, Map<String, FileHash> known) {
    ObjectNode m = Lineage.MAPPER.createObjectNode();
    m.put("path", dir.toAbsolutePath().normalize().toString());
    StringBuilder all = new StringBuilder();
    ArrayNode arr = m.putArray("files");
    for (Path f : files) {
      FileHash h = FileHash.of(f, known);
      arr.add(Lineage.MAPPER.valueToTree(h));
      all.append(f.getFileName()).append(' ').append(h.sha256()).append('\n');
    }
    m.put("sha256", sha256(all.toString().getBytes(StandardCharsets.UTF_8)));
    return m;
  }

  private static List<Path> list(Path dir, String suffix) {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(f -> f.getFileName().toString().endsWith(suffix) && Files.isRegularFile(f)).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + dir, e);
    }
  }

  /** Hashes recorded in an earlier {@code lineage.json} (path → hash), to skip files that did not change. */
  static Map<String, FileHash> known(JsonNode earlier) {
    Map<String, FileHash> m = new java.util.HashMap<>();
    if (earlier == null) return m;
    for (JsonNode f : earlier.findValues("files")) {
      for (JsonNode h : f) {
        FileHash fh = Lineage.MAPPER.convertValue(h, FileHash.class);
        if (fh.path() != null) m.put(fh.path(), fh);
      }
    }
    return m;
  }

  static String version() {
    String v = LineageInputs.class.getPackage().getImplementationVersion();
    return v == null ? "development" : v;
  }

  /** The commit Weft was built from, when the build recorded it ({@code dev/weft/build.properties}); else unknown. */
  static String commit() {
    try (InputStream in = LineageInputs.class.getResourceAsStream("/dev/weft/build.properties")) {
      if (in == null) return "unknown";
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("commit", "unknown");
    } catch (IOException e) {
      return "unknown";
    }
  }

  private static String sha256(byte[] b) { return Sha256.hex(Sha256.digest().digest(b)); }
}
