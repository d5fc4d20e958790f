package dev.weft.models.hf;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How the Hub splits weights into files: tensors in order, a new file whenever the next tensor would
 * take the current one past the limit (a tensor larger than the limit gets a file of its own), named
 * {@code model-00001-of-00003.safetensors}; one file is plain {@code model.safetensors}. Pure.
 */
public final class HfShards {
  /** The Hub's default limit (transformers' {@code max_shard_size="5GB"}). */
  public static final long DEFAULT_MAX_BYTES = 5_000_000_000L;
  private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([KMGT]I?B|B)?", Pattern.CASE_INSENSITIVE);

  private HfShards() {}

  /** The file index of each tensor, given their byte sizes in writing order. */
  public static int[] plan(long[] bytes, long maxBytes) {
    int[] file = new int[bytes.length];
    int current = 0;
    long used = 0;
    for (int i = 0; i < bytes.length; i++) {
      if (used > 0 && used + bytes[i] > maxBytes) {
        current++;
        used = 0;
      }
      file[i] = current;
      used += bytes[i];
    }
    return file;
  }

  /** The name of file {@code index} (0-based) of {@code count}. */
  public static String fileName(int index, int count) {
    return count == 1 ? HfCheckpoint.WEIGHTS : String.format(Locale.ROOT, "model-%05d-of-%05d.safetensors", index + 1, count);
  }

  /**
   * A size as the Hub spells it: {@code 5GB} (10⁹), {@code 500MB}, {@code 2GiB} (2³⁰), or plain bytes;
   * null when {@code text} is none of these.
   */
  public static Long parseSize(String text) {
    Matcher m = SIZE.matcher(text.trim());
    if (!m.matches()) return null;
    double n = Double.parseDouble(m.group(1));
    String unit = m.group(2) == null ? "B" : m.group(2).toUpperCase(Locale.ROOT);
    long scale = switch (unit) {
      case "B" -> 1L;
      case "KB" -> 1_000L;
      case "MB" -> 1_000_000L;
      case "GB" -> 1_000_000_000L;
      case "TB" -> 1_000_000_000_000L;
      case "KIB" -> 1L << 10;
      case "MIB" -> 1L << 20;
      case "GIB" -> 1L << 30;
      case "TIB" -> 1L << 40;
      default -> -1L;
    };
    long bytes = (long) (n * scale);
    return scale < 0 || bytes < 1 ? null : bytes;
  }

  /** Tensor indices of each file, from {@link #plan}'s result. */
  public static List<List<Integer>> files(int[] plan) {
    List<List<Integer>> out = new ArrayList<>();
    for (int i = 0; i < plan.length; i++) {
      while (out.size() <= plan[i]) out.add(new ArrayList<>());
      out.get(plan[i]).add(i);
    }
    return out;
  }
}
