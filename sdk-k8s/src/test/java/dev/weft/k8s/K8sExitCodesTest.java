package dev.weft.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.testing.WeftCli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 41 item 5 for the {@code weft k8s} extension (sdk-api's ExitCodeSweepTest cannot see it): a missing spec, a
 * directory for the spec, a file for the output directory and out-of-range numbers are one line ({@code error:} from the k8s commands' own handler, {@code weft:} from the CLI's), exit 2.
 * {@code status}, {@code logs} and {@code delete} take only a run's name (no file, no number).
 */
class K8sExitCodesTest {
  @TempDir Path dir;

  @Test
  void renderAndApplyRefuseWhatTheyAreGivenInOneLine() throws Exception {
    Path spec = dir.resolve("s.yaml");
    Files.writeString(spec, "name: t\nmodel:\n  config: {layers: 1, hidden: 32, heads: 2}\ndata: {seqLen: 16}\n"
        + "train: {steps: 2, globalBatch: 4, warmup: 1}\n");
    Path file = Files.writeString(dir.resolve("a-file"), "x");
    List<String[]> cases = List.of(
        new String[] {"k8s", "render", dir.resolve("missing.yaml").toString(), "--target", "pytorchjob"},
        new String[] {"k8s", "render", dir.toString(), "--target", "pytorchjob"},
        new String[] {"k8s", "render", spec.toString(), "--target", "pytorchjob", "--set", "train.steps=-5"},
        new String[] {"k8s", "render", spec.toString(), "--target", "pytorchjob", "-o", file.toString()},
        new String[] {"k8s", "apply", dir.resolve("missing.yaml").toString(), "--target", "pytorchjob"},
        new String[] {"k8s", "apply", spec.toString(), "--target", "pytorchjob", "--set", "train.steps=-5"});
    List<String> wrong = new ArrayList<>();
    for (String[] args : cases) {
      WeftCli.Run r = WeftCli.run(args);
      if (r.code() != 2 || r.err().lines().count() != 1 || !(r.err().startsWith("error: ") || r.err().startsWith("weft: ")) || r.err().contains("Exception")) {
        wrong.add(String.join(" ", args) + " -> exit " + r.code() + ": " + r.err());
      }
    }
    assertThat(wrong).as(String.join("\n", wrong)).isEmpty();
  }
}
