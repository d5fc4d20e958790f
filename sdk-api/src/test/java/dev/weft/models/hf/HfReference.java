package dev.weft.models.hf;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.weft.cli.WeftMain;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/** The weft command in-process (stdout captured), and the independent NumPy reference (hf_reference.py). */
public final class HfReference {
  private HfReference() {}

  public record Cli(int code, String out) {}

  public static synchronized Cli cli(String... args) {
    PrintStream old = System.out;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
    try {
      return new Cli(WeftMain.commandLine().execute(args), buf.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(old);
    }
  }

  /** Runs hf_reference.py (NumPy only); skips when python3 with numpy is not installed. */
  public static JsonNode numpyReference(Path model, Path tokens, int seqLen, String prompt, int k) throws Exception {
    Path script = Files.createTempFile("hf_reference", ".py");
    try (InputStream in = HfReference.class.getResourceAsStream("hf_reference.py")) {
      Files.write(script, in.readAllBytes());
    }
    Assumptions.assumeTrue(python("-c", "import numpy") == 0, "python3 with numpy is not installed; the NumPy reference cannot run");
    Process p = new ProcessBuilder("python3", script.toString(), model.toString(), tokens.toString(), String.valueOf(seqLen), prompt,
        String.valueOf(k)).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(300, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("hf_reference.py exit").isZero();
    Files.deleteIfExists(script);
    return new ObjectMapper().readTree(out);
  }

  private static int python(String... args) {
    try {
      List<String> cmd = new java.util.ArrayList<>(List.of("python3"));
      cmd.addAll(List.of(args));
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(120, TimeUnit.SECONDS) ? p.exitValue() : -1;
    } catch (IOException | InterruptedException e) {
      return -1;
    }
  }
}
