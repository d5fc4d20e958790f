package dev.weft.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** samples/notebook.jsh executed by the JShell tool, with this build on its class path. */
@Tag("slow")
class NotebookTest {
  @Test
  void theNotebookBuildsAModelTrainsAndPrintsALossCurve() throws Exception {
    Path notebook = Path.of("..", "samples", "notebook.jsh").toAbsolutePath().normalize();
    assertThat(notebook).exists();
    Path jshell = Path.of(System.getProperty("java.home"), "bin", "jshell");
    ProcessBuilder pb = new ProcessBuilder(List.of(jshell.toString(), "-R-XX:+UseSerialGC", "--class-path",
        System.getProperty("java.class.path"), notebook.toString())).redirectErrorStream(true)
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    pb.environment().put("OMP_WAIT_POLICY", "PASSIVE");
    Path log = Files.createTempFile("notebook", ".log");
    Process p = pb.redirectOutput(log.toFile()).start();
    boolean done = p.waitFor(180, TimeUnit.SECONDS);
    if (!done) p.destroyForcibly();
    String out = Files.readString(log, StandardCharsets.UTF_8);
    assertThat(done).as(out).isTrue();
    assertThat(out).as(out).doesNotContain("|  Error").doesNotContain("Exception")
        .containsPattern("model: [\\d,]+ parameters")
        .contains("step 40/40")
        .containsPattern("loss \\d\\.\\d{4} -> \\d\\.\\d{4} over 40 steps")
        .contains("(step)");
    String[] ends = out.replaceAll("(?s).*loss (\\d\\.\\d{4}) -> (\\d\\.\\d{4}) over.*", "$1 $2").split(" ");
    assertThat(Double.parseDouble(ends[1])).as("the loss went down").isLessThan(Double.parseDouble(ends[0]));
  }
}
