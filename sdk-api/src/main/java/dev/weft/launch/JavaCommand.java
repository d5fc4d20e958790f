package dev.weft.launch;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The command line of a Java process Weft starts (a worker, an agent): this JVM's java, class path and JavaCPP settings. */
public final class JavaCommand {
  /**
   * JVM options for every Java process Weft starts, e.g. a heap limit. The test suite sets
   * {@code -XX:TieredStopAtLevel=1}: its runs are a few steps long, where C2's compile time is a third of the CPU.
   */
  public static final String CHILD_JAVA_OPTS = "WEFT_CHILD_JAVA_OPTS";

  /**
   * The young generation of every Weft JVM: tensors live off the heap, so the Java objects a step makes are handles and
   * metrics; the default (a third of a 1/64-of-RAM initial heap, ~100 MiB here) is touched whole before the first
   * collection and stays resident: it was a quarter of a worker's runtime memory (370 → 273 MiB on a tiny model).
   */
  public static final String YOUNG_GENERATION = "-Xmn16m";

  private JavaCommand() {}

  /** {@code java [flags] -cp CLASSPATH MAIN_AND_ARGS...}. */
  public static List<String> of(List<String> mainAndArgs) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("--enable-native-access=ALL-UNNAMED"); // accepted by 17, needed quiet on 22+
    cmd.add("-XX:+UseSerialGC");
    cmd.add(YOUNG_GENERATION);
    String extra = System.getenv(CHILD_JAVA_OPTS);
    if (extra != null && !extra.isBlank()) cmd.addAll(List.of(extra.trim().split("\\s+")));
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    // JavaCPP's settings (its cache, the -gpu platform extension a pod selects) hold for the children too
    System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith("org.bytedeco.")).sorted()
        .forEach(k -> cmd.add("-D" + k + "=" + System.getProperty(k)));
    cmd.addAll(mainAndArgs);
    return cmd;
  }
}
