package dev.weft.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Weft's safetensors reader against the reference (Python's {@code safetensors}) on several hundred
 * damaged headers: every file the reference refuses, Weft refuses; and where Weft refuses a file the
 * reference reads, it is one of the two places Weft is stricter on purpose — a name or key given twice
 * (the reference keeps the last), or a dtype Weft does not handle. Skipped without python3 and
 * safetensors, except under {@code CI=true}, where that is a failure.
 */
class SafetensorsReferenceTest {
  private static final String SCRIPT = """
      import sys
      from safetensors import safe_open
      for path in sys.argv[1:]:
          try:
              with safe_open(path, framework="numpy") as f:
                  for k in f.keys():
                      f.get_slice(k).get_shape()  # the header is checked at open; numpy has no bfloat16 to read into
              print("OK")
          except Exception as e:
              print("ERR " + type(e).__name__)
      """;
  private static final String[] DTYPES = {"F32", "F64", "F16", "BF16", "I64", "I32", "I16", "I8", "U8", "BOOL"};
  private static final int[] WIDTH = {4, 8, 2, 2, 8, 4, 2, 1, 1, 1};

  @TempDir Path dir;

  /** One generated case: the file, and whether Weft is allowed to be stricter than the reference on it. */
  private record Case(Path file, String what, boolean stricterAllowed) {}

  @Test
  void weftRefusesEverythingTheReferenceRefuses() throws Exception {
    requirePython();
    Random rnd = new Random(31);
    List<Case> cases = new ArrayList<>();
    for (int i = 0; i < 400; i++) cases.add(generate(rnd, i));
    Path script = dir.resolve("check.py");
    Files.writeString(script, SCRIPT);
    List<String> cmd = new ArrayList<>(List.of("python3", script.toString()));
    for (Case c : cases) cmd.add(c.file().toString());
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    List<String> verdicts = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(verdicts).hasSize(cases.size());
    int refusedByBoth = 0;
    for (int i = 0; i < cases.size(); i++) {
      Case c = cases.get(i);
      boolean reference = verdicts.get(i).equals("OK");
      boolean weft = weftReads(c.file());
      if (!reference) assertThat(weft).as("reference refuses %s, Weft must too", c.what()).isFalse();
      if (reference && !weft) assertThat(c.stricterAllowed()).as("Weft refuses %s, which the reference reads", c.what()).isTrue();
      if (!reference && !weft) refusedByBoth++;
    }
    assertThat(refusedByBoth).as("the generator damages most headers").isGreaterThan(150);
  }

  private static boolean weftReads(Path f) {
    try {
      SafetensorsFile sf = SafetensorsFile.open(f);
      for (SafetensorsFile.Entry e : sf.entries().values()) {
        try (org.bytedeco.javacpp.BytePointer b = new org.bytedeco.javacpp.BytePointer(Math.max(1, e.end() - e.begin()))) {
          sf.read(e, 0, e.numel(), b);
        }
      }
      return true;
    } catch (CorruptCheckpointException e) {
      return false;
    }
  }

  /** A valid header of 1-3 tensors, then (mostly) one damage of the kinds issue 31's probes used. */
  private Case generate(Random rnd, int i) throws Exception {
    int n = 1 + rnd.nextInt(3);
    List<String> names = new ArrayList<>(), dtypes = new ArrayList<>();
    List<long[]> shapes = new ArrayList<>(), offsets = new ArrayList<>();
    long at = 0;
    for (int t = 0; t < n; t++) {
      int d = rnd.nextInt(DTYPES.length);
      long[] shape = rnd.nextInt(5) == 0 ? new long[] {} : new long[] {rnd.nextInt(4), 1 + rnd.nextInt(3)};
      long bytes = WIDTH[d] * TensorSlice.product(shape);
      names.add("t" + t);
      dtypes.add(DTYPES[d]);
      shapes.add(shape);
      offsets.add(new long[] {at, at + bytes});
      at += bytes;
    }
    long data = at;
    String meta = "\"__metadata__\":{\"format\":\"pt\"},";
    String lead = "", tail = "";
    boolean stricter = false;
    int k = rnd.nextInt(n);
    String what;
    switch (rnd.nextInt(15)) {
      case 0 -> what = "a valid file";
      case 1 -> { what = "a tensor shifted by a byte"; offsets.get(k)[0] += 1; offsets.get(k)[1] += 1; }
      case 2 -> { what = "a tensor's end moved"; offsets.get(k)[1] += 1 + rnd.nextInt(8); }
      case 3 -> { what = "trailing data bytes"; data += 1 + rnd.nextInt(8); }
      case 4 -> { what = "data cut short"; data = Math.max(0, data - 1 - rnd.nextInt(8)); }
      case 5 -> { what = "a shape that lies"; shapes.set(k, new long[] {3, 5}); }
      case 6 -> { what = "a name given twice"; names.set(k, names.get((k + 1) % n)); stricter = true; }
      case 7 -> { what = "metadata of a number"; meta = "\"__metadata__\":{\"format\":1},"; }
      case 8 -> { what = "null metadata"; meta = "\"__metadata__\":null,"; }
      case 9 -> { what = "a lowercase dtype"; dtypes.set(k, dtypes.get(k).toLowerCase()); }
      case 10 -> { what = "an unknown dtype"; dtypes.set(k, "Q4"); }
      case 11 -> { what = "a trailing JSON value"; tail = rnd.nextBoolean() ? "{}" : " 1"; }
      case 12 -> { what = "leading and trailing spaces"; lead = "  "; tail = "   "; }
      case 13 -> { what = "a metadata key given twice"; meta = "\"__metadata__\":{\"format\":\"pt\",\"format\":\"np\"},"; stricter = true; }
      default -> { what = "an offset past the end"; offsets.get(k)[1] = data + 64; }
    }
    StringBuilder h = new StringBuilder(lead).append("{").append(meta);
    for (int t = 0; t < n; t++) {
      if (t > 0) h.append(',');
      h.append('"').append(names.get(t)).append("\":{\"dtype\":\"").append(dtypes.get(t)).append("\",\"shape\":")
          .append(java.util.Arrays.toString(shapes.get(t)).replace(" ", "")).append(",\"data_offsets\":[")
          .append(offsets.get(t)[0]).append(',').append(offsets.get(t)[1]).append("]}");
    }
    h.append('}').append(tail);
    byte[] json = h.toString().getBytes(StandardCharsets.UTF_8);
    if (rnd.nextInt(12) == 0) { what += ", and a byte that is not UTF-8"; json[json.length - 3 - lead.length() - tail.length()] = (byte) 0xff; }
    ByteBuffer b = ByteBuffer.allocate((int) (8 + json.length + data)).order(ByteOrder.LITTLE_ENDIAN);
    b.putLong(json.length).put(json);
    Path f = dir.resolve("case-" + i + ".safetensors");
    Files.write(f, b.array());
    return new Case(f, what + " (" + f.getFileName() + ": " + h + ")", stricter);
  }

  private static void requirePython() {
    boolean ok;
    try {
      Process p = new ProcessBuilder("python3", "-c", "import safetensors, numpy").redirectErrorStream(true).start();
      ok = p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (Exception e) {
      ok = false;
    }
    dev.weft.testing.Required.that(ok, "python3 cannot import safetensors and numpy; the reference comparison cannot run "
        + "(.ci/run installs them from the local wheel mirror)");
  }
}
