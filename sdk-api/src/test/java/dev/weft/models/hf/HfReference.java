package dev.weft.models.hf;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import dev.weft.testing.PythonRef;

/** The independent NumPy reference (hf_reference.py) and tiny Hugging Face directories to check against it. */
public final class HfReference {
  private HfReference() {}

  /** Runs hf_reference.py (NumPy only); skips locally (fails under CI=true) when python3 with numpy is not installed. */
  public static JsonNode numpyReference(Path model, Path tokens, int seqLen, String prompt, int k) throws Exception {
    PythonRef.require("numpy");
    return new ObjectMapper().readTree(runScript("hf_reference.py", model.toString(), tokens.toString(), String.valueOf(seqLen), prompt,
        String.valueOf(k)));
  }

  /** A tiny random Hugging Face directory of {@code family} written by hf_families.py (NumPy + safetensors). */
  public static Path writeFamily(String family, Path dir, long seed, boolean tied) throws Exception {
    return writeFamily(family, dir, seed, tied, false);
  }

  /** As {@link #writeFamily(String, Path, long, boolean)}; {@code fused}: experts in transformers 5's fused layout. */
  public static Path writeFamily(String family, Path dir, long seed, boolean tied, boolean fused) throws Exception {
    PythonRef.require("numpy", "safetensors");
    runScript("hf_families.py", family, dir.toString(), String.valueOf(seed), tied ? "tied" : "untied", fused ? "fused" : "per-expert");
    return dir;
  }

  /**
   * hf_reference.py's rotary frequencies for each case {@code {"config": {...}, "head_dim": d, "seq_len": n}}:
   * a JSON list of {@code {"inv": [...], "scale": s}}.
   */
  public static JsonNode ropeReference(String casesJson) throws Exception {
    PythonRef.require("numpy");
    Path d = Files.createTempDirectory("rope");
    try (InputStream in = HfReference.class.getResourceAsStream("hf_reference.py")) {
      Files.write(d.resolve("hf_reference.py"), in.readAllBytes());
    }
    String driver = "import sys, json\nsys.path.insert(0, sys.argv[1])\nfrom hf_reference import rope_inv_freq\nout = []\n"
        + "for c in json.loads(sys.argv[2]):\n  inv, s = rope_inv_freq(c['config'], c['head_dim'], c['seq_len'])\n"
        + "  out.append({'inv': [float(x) for x in inv], 'scale': float(s)})\nprint(json.dumps(out))\n";
    Path script = Files.writeString(d.resolve("rope_driver.py"), driver);
    try {
      Process p = new ProcessBuilder(PythonRef.command(script.toString(), d.toString(), casesJson))
          .redirectError(ProcessBuilder.Redirect.INHERIT).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).as("rope driver exit").isZero();
      return new ObjectMapper().readTree(out);
    } finally {
      Files.deleteIfExists(script);
      Files.deleteIfExists(d.resolve("hf_reference.py"));
      Files.deleteIfExists(d);
    }
  }

  private static String runScript(String resource, String... args) throws Exception {
    Path script = Files.createTempFile(resource.replace(".py", ""), ".py");
    try (InputStream in = HfReference.class.getResourceAsStream(resource)) {
      Files.write(script, in.readAllBytes());
    }
    try {
      Process p = new ProcessBuilder(PythonRef.command(script.toString(), args)).redirectError(ProcessBuilder.Redirect.INHERIT).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(300, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).as(resource + " exit").isZero();
      return out;
    } finally {
      Files.deleteIfExists(script);
    }
  }

}
