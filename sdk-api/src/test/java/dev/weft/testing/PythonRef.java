package dev.weft.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The Python reference tools tests compare Weft against (numpy, safetensors, transformers, tokenizers,
 * pyarrow, peft, jax): never Weft's runtime. {@code .ci/run} installs them into a virtual environment
 * and puts its {@code python3} first on PATH; {@code WEFT_PYTHON} names another interpreter.
 * Missing modules skip a test locally and fail it under {@code CI=true}, with the reason.
 */
public final class PythonRef {
  private PythonRef() {}

  /** The interpreter to run reference scripts with. */
  public static String python() {
    String p = System.getenv("WEFT_PYTHON");
    return p == null || p.isBlank() ? "python3" : p;
  }

  /** Skips (locally) or fails (CI=true) unless {@link #python()} imports every module named. */
  public static void require(String... modules) {
    String imports = "import " + String.join(", ", modules);
    boolean ok;
    try {
      Process p = new ProcessBuilder(python(), "-c", imports).redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      ok = p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (Exception e) {
      ok = false;
    }
    String why = python() + " cannot '" + imports + "'; .ci/run installs the reference tools from the local wheel mirror";
    Required.that(ok, why);
  }

  /** A command line that runs {@code script} with {@link #python()}. */
  public static List<String> command(String script, String... args) {
    List<String> cmd = new ArrayList<>(List.of(python(), script));
    cmd.addAll(List.of(args));
    return cmd;
  }
}
