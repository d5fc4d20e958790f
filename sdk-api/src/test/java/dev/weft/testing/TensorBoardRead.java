package dev.weft.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Event files as TensorBoard's own reader ({@code EventAccumulator}) sees them, through {@link PythonRef}. */
public final class TensorBoardRead {
  private TensorBoardRead() {}

  /** For each directory argument, one line: {tag: [[step, value], ...]} of every scalar, and {"text": {tag: string}} of the text tensors. */
  private static final String READ = """
      import json, sys
      from tensorboard.backend.event_processing import event_accumulator as ea
      for d in sys.argv[1:]:
        acc = ea.EventAccumulator(d, size_guidance={ea.SCALARS: 0, ea.TENSORS: 0})
        acc.Reload()
        out = {t: [[e.step, e.value] for e in acc.Scalars(t)] for t in acc.Tags()["scalars"]}
        out["text"] = {t: acc.Tensors(t)[0].tensor_proto.string_val[0].decode("utf-8") for t in acc.Tags()["tensors"]}
        out["plugins"] = {t: acc.SummaryMetadata(t).plugin_data.plugin_name for t in acc.Tags()["tensors"]}
        print(json.dumps(out))
      """;

  /** What TensorBoard reads in each of {@code dirs} (one Python process for all). */
  public static List<JsonNode> read(Path... dirs) throws Exception {
    Path script = dirs[0].resolveSibling("read_events.py");
    Files.writeString(script, READ);
    String[] args = java.util.Arrays.stream(dirs).map(Path::toString).toArray(String[]::new);
    Process p = new ProcessBuilder(PythonRef.command(script.toString(), args)).redirectErrorStream(false).start();
    byte[] out = p.getInputStream().readAllBytes();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(err).isZero();
    List<JsonNode> got = new java.util.ArrayList<>();
    for (String line : new String(out, StandardCharsets.UTF_8).strip().split("\n")) got.add(new ObjectMapper().readTree(line));
    assertThat(got).hasSize(dirs.length);
    for (Path d : dirs) {
      try (Stream<Path> files = Files.list(d)) {
        assertThat(files.map(f -> f.getFileName().toString())).allMatch(n -> n.startsWith("events.out.tfevents."));
      }
    }
    return got;
  }
}
