package dev.weft.k8s;

import dev.weft.k8s.cli.K8sCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** Runs {@code weft k8s ARGS} in-process and captures what it printed. */
public record Cli(int code, String out, String err) {
  public static Cli run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = new CommandLine(new K8sCommand()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args);
    return new Cli(code, out.toString(), err.toString());
  }
}
