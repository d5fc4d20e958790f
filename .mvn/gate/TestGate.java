import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The reactor's test gate. Surefire records failures without stopping the build (testFailureIgnore),
 * so every module's tests run even when an earlier module's fail; this program runs after the tests of
 * each module and, in the last module of the session only, fails the build if any report written in
 * this session holds a failure or an error, listing them all.
 *
 * Arguments ({@code name=value}, as Maven renders non-string values only inside a string): this module's pom, the session's project list (Maven's toString), the session's start
 * (epoch ms), the build directory name.
 */
public class TestGate {
  private static final Pattern POM = Pattern.compile("@ ([^,\\]]+pom\\.xml)");
  private static final Pattern SUITE = Pattern.compile("<testsuite [^>]*>");
  private static final Pattern CASE = Pattern.compile("<testcase [^>]*?name=\"([^\"]*)\"[^>]*?classname=\"([^\"]*)\"[^>]*?(/>|>([\\s\\S]*?)</testcase>)");

  public static void main(String[] raw) throws IOException {
    String[] args = new String[raw.length];
    for (int i = 0; i < raw.length; i++) args[i] = raw[i].substring(raw[i].indexOf('=') + 1); // "name=value"
    Path self = Path.of(args[0]).toAbsolutePath().normalize();
    List<Path> poms = new ArrayList<>();
    Matcher m = POM.matcher(args[1]);
    while (m.find()) poms.add(Path.of(m.group(1).trim()).toAbsolutePath().normalize());
    if (poms.isEmpty() || !poms.get(poms.size() - 1).equals(self)) return; // not the last module
    long since = Long.parseLong(args[2]) - 2000;
    int suites = 0, tests = 0;
    List<String> failed = new ArrayList<>();
    for (Path pom : poms) {
      Path reports = pom.getParent().resolve(args[3]).resolve("surefire-reports");
      if (!Files.isDirectory(reports)) continue;
      try (DirectoryStream<Path> ds = Files.newDirectoryStream(reports, "TEST-*.xml")) {
        for (Path f : ds) {
          if (Files.getLastModifiedTime(f).toMillis() < since) continue; // from an earlier build
          String xml = Files.readString(f);
          suites++;
          Matcher s = SUITE.matcher(xml);
          if (s.find()) tests += attr(s.group(), "tests");
          Matcher c = CASE.matcher(xml);
          while (c.find()) {
            String body = c.group(4) == null ? "" : c.group(4);
            if (body.contains("<failure") || body.contains("<error")) {
              failed.add(pom.getParent().getFileName() + ": " + c.group(2) + "." + c.group(1));
            }
          }
        }
      }
    }
    System.out.printf("weft test gate: %d test classes, %d tests run in this build across %d modules, %d failed%n",
        suites, tests, poms.size(), failed.size());
    if (!failed.isEmpty()) {
      failed.forEach(f -> System.out.println("  FAILED " + f));
      System.exit(1);
    }
  }

  private static int attr(String tag, String name) {
    Matcher m = Pattern.compile(" " + name + "=\"(\\d+)\"").matcher(tag);
    return m.find() ? Integer.parseInt(m.group(1)) : 0;
  }
}
