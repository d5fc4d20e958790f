package dev.weft.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.spec.SpecException;
import dev.weft.tracking.Lineage;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code weft lineage DIR}: where a model came from; {@code --diff A B}: the fields two lineages differ in. */
@Command(name = "lineage", mixinStandardHelpOptions = true,
    description = {"Print where a run or an exported model came from (its lineage.json): the run, the spec's hash, Weft's version,",
        "the base model's and tokenizer's hashes, the data files' hashes and samples consumed, checkpoints, exports, final metrics.",
        "With --diff A B: every field that differs between two lineages."})
final class LineageCommand implements Callable<Integer> {
  @Parameters(paramLabel = "DIR", arity = "1..2",
      description = "A run directory, a directory weft checkpoint export wrote, or a lineage.json; two with --diff.") List<Path> dirs;

  @Option(names = "--diff", description = "Compare two lineages field by field.") boolean diff;

  @Override
  public Integer call() {
    if (diff != (dirs.size() == 2)) {
      throw new SpecException(diff ? "--diff" : "DIR", diff ? "compares two lineages; give A and B" : "give one directory, or --diff A B");
    }
    for (Path d : dirs) {
      if (!java.nio.file.Files.isRegularFile(java.nio.file.Files.isDirectory(d) ? d.resolve(Lineage.FILE) : d)) {
        throw new SpecException("DIR", d + " holds no " + Lineage.FILE + "; give a run directory, a directory weft checkpoint export"
            + " wrote, or a lineage.json");
      }
    }
    if (diff) {
      Map<String, String[]> d = Lineage.diff(Lineage.read(dirs.get(0)), Lineage.read(dirs.get(1)));
      for (var e : d.entrySet()) System.out.printf("%s: %s -> %s%n", e.getKey(), shown(e.getValue()[0]), shown(e.getValue()[1]));
      System.out.printf("weft: %d field(s) differ between %s and %s%n", d.size(), dirs.get(0), dirs.get(1));
      return 0;
    }
    describe(Lineage.read(dirs.get(0))).forEach(System.out::println);
    return 0;
  }

  private static String shown(String v) { return v == null ? "(absent)" : v; }

  static List<String> describe(JsonNode l) {
    List<String> out = new java.util.ArrayList<>();
    JsonNode run = l.path("run");
    if (l.has("export")) {
      JsonNode x = l.get("export");
      out.add("export: " + x.path("format").asText() + " of step " + x.path("step").asText() + " of " + x.path("checkpoint").asText());
    }
    out.add("run: " + run.path("name").asText("?") + " in " + run.path("dir").asText("?") + " (" + run.path("status").asText("?") + ")");
    out.add("weft: " + l.path("weft").path("version").asText("?") + ", commit " + l.path("weft").path("commit").asText("unknown"));
    out.add("spec: sha256 " + l.path("spec_sha256").asText("?"));
    out.add(files("base model", l.path("base_model")));
    out.add(files("tokenizer", l.path("tokenizer")));
    for (JsonNode d : l.path("data")) {
      out.add("data: " + d.path("source").asText() + " (weight " + d.path("weight").asText() + ")");
      for (JsonNode f : d.path("files")) out.add("  " + f.path("path").asText() + " sha256 " + f.path("sha256").asText());
    }
    JsonNode s = l.path("samples");
    if (!s.isMissingNode()) {
      out.add("samples: " + s.path("consumed").asText() + " in " + s.path("steps").asText() + " steps"
          + (s.path("per_epoch").isArray() ? ", per epoch " + s.get("per_epoch") : " (a source without epochs)"));
    }
    JsonNode c = l.path("checkpoints");
    if (!c.isMissingNode()) out.add("checkpoints: " + c.path("location").asText() + ", written at steps " + c.path("written"));
    for (JsonNode x : l.path("exports")) out.add("exported: " + x.path("format").asText() + " of step " + x.path("step").asText() + " to " + x.path("dir").asText());
    JsonNode m = l.path("final_metrics");
    if (!m.isMissingNode()) {
      JsonNode loss = m.has("final_loss") ? m.get("final_loss") : m.path("loss");
      out.add("final: loss " + (loss.isNumber() ? String.format(java.util.Locale.ROOT, "%.4f", loss.asDouble()) : loss.asText("?"))
          + ", steps " + m.path("steps").asText(m.path("step").asText("?")));
    }
    return out;
  }

  private static String files(String what, JsonNode n) {
    if (n.isMissingNode() || n.isNull()) return what + ": none (model.pretrained is empty)";
    return what + ": " + n.path("path").asText() + " sha256 " + n.path("sha256").asText() + " (" + n.path("files").size() + " file(s))";
  }
}
