package dev.weft.metrics.prometheus;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A strict parser of the Prometheus text exposition format 0.0.4: every line must be a HELP, a TYPE
 * or a sample of a declared family; label values are unescaped; anything else is an error.
 */
final class PromText {
  record Sample(String name, Map<String, String> labels, double value) {}

  record Family(String name, String type, String help, List<Sample> samples) {}

  private static final Pattern NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
  private static final Pattern HELP = Pattern.compile("# HELP (" + NAME + ") (.*)");
  private static final Pattern TYPE = Pattern.compile("# TYPE (" + NAME + ") (counter|gauge|histogram|summary|untyped|info|stateset|unknown)");
  private static final Pattern SAMPLE = Pattern.compile("(" + NAME + ")(\\{(.*)\\})? (\\S+)( -?\\d+)?");
  private static final Pattern LABEL = Pattern.compile("\\s*([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"\\s*(,|$)");
  private static final String[] SUFFIXES = {"", "_total", "_created", "_bucket", "_count", "_sum", "_info", "_gcount", "_gsum"};

  private PromText() {}

  static Map<String, Family> parse(String text) {
    Map<String, Family> families = new LinkedHashMap<>();
    Map<String, String> helps = new LinkedHashMap<>();
    int n = 0;
    for (String line : text.split("\n", -1)) {
      n++;
      if (line.isEmpty()) continue;
      Matcher m;
      if ((m = HELP.matcher(line)).matches()) {
        helps.put(m.group(1), m.group(2));
      } else if ((m = TYPE.matcher(line)).matches()) {
        if (families.containsKey(m.group(1))) throw new IllegalArgumentException("line " + n + ": second TYPE for " + m.group(1));
        families.put(m.group(1), new Family(m.group(1), m.group(2), helps.get(m.group(1)), new ArrayList<>()));
      } else if (line.startsWith("#")) {
        throw new IllegalArgumentException("line " + n + ": unknown comment: " + line);
      } else if ((m = SAMPLE.matcher(line)).matches()) {
        Family f = familyOf(families, m.group(1));
        if (f == null) throw new IllegalArgumentException("line " + n + ": sample of undeclared family: " + line);
        f.samples().add(new Sample(m.group(1), labels(m.group(3), n), value(m.group(4), n)));
      } else {
        throw new IllegalArgumentException("line " + n + ": not a sample: " + line);
      }
    }
    return families;
  }

  /** The family a sample name belongs to (name itself or name + _total, _bucket, ...), or null. */
  static Family familyOf(Map<String, Family> families, String sample) {
    for (String s : SUFFIXES) {
      if (sample.endsWith(s) && families.containsKey(sample.substring(0, sample.length() - s.length()))) {
        return families.get(sample.substring(0, sample.length() - s.length()));
      }
    }
    return null;
  }

  private static Map<String, String> labels(String body, int n) {
    Map<String, String> out = new LinkedHashMap<>();
    if (body == null || body.isEmpty()) return out;
    Matcher m = LABEL.matcher(body);
    int at = 0;
    while (at < body.length()) {
      if (!m.find(at) || m.start() != at) throw new IllegalArgumentException("line " + n + ": bad labels: " + body);
      String v = m.group(2).replace("\\n", "\n").replace("\\\"", "\"").replace("\\\\", "\\");
      if (out.put(m.group(1), v) != null) throw new IllegalArgumentException("line " + n + ": repeated label " + m.group(1));
      at = m.end();
    }
    return out;
  }

  private static double value(String s, int n) {
    switch (s) {
      case "NaN": return Double.NaN;
      case "+Inf": return Double.POSITIVE_INFINITY;
      case "-Inf": return Double.NEGATIVE_INFINITY;
      default:
        try {
          return Double.parseDouble(s);
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("line " + n + ": bad value " + s);
        }
    }
  }

  /** The value of the one sample named {@code name} whose labels include {@code labels}. */
  static double value(Map<String, Family> fams, String name, Map<String, String> labels) {
    Family f = familyOf(fams, name);
    if (f == null) throw new AssertionError("no family for " + name + " in " + fams.keySet());
    List<Sample> hits = f.samples().stream().filter(s -> s.name().equals(name))
        .filter(s -> s.labels().entrySet().containsAll(labels.entrySet())).toList();
    if (hits.size() != 1) throw new AssertionError(hits.size() + " samples of " + name + labels + " in " + f);
    return hits.get(0).value();
  }
}
