package dev.weft.launch;

import dev.weft.error.BadInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The C allocator a worker process runs with ({@value #ENV}: {@code auto}, the default, {@code jemalloc}, {@code system},
 * or a library's path). libtorch allocates every CPU tensor with malloc, and a step frees and makes again blocks of
 * megabytes in an order glibc's arenas keep: they grow by 64 MiB heaps whose freed middles stay resident, and its mmap
 * threshold rises to the largest block freed, so from then on those blocks come from the heaps too. A Qwen2.5-0.5B
 * LoRA step over an NF4 base peaked at 2,383 MiB under glibc and 1,645 MiB under jemalloc, same losses (issue 43);
 * PyTorch's own CPU launcher preloads jemalloc or tcmalloc for the same reason. {@code auto} preloads jemalloc where
 * the system has it and keeps glibc's otherwise; an LD_PRELOAD the user set is kept, and comes first.
 */
public final class Allocator {
  /** The environment variable that chooses the allocator. */
  public static final String ENV = "WEFT_ALLOCATOR";

  /** Where distributions install jemalloc's shared library (Debian/Ubuntu libjemalloc2, RHEL/Fedora jemalloc, Alpine). */
  static final List<String> JEMALLOC = List.of(
      "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", "/usr/lib/aarch64-linux-gnu/libjemalloc.so.2",
      "/usr/lib64/libjemalloc.so.2", "/usr/lib/libjemalloc.so.2", "/usr/local/lib/libjemalloc.so.2");

  private Allocator() {}

  /** What the workers of this process get: LD_PRELOAD where jemalloc is chosen and found; nothing for glibc's. */
  public static Map<String, String> workerEnv() { return workerEnv(System.getenv()); }

  /** As {@link #workerEnv()} for a process whose environment is otherwise {@code env}. */
  public static Map<String, String> workerEnv(Map<String, String> env) { return workerEnv(env, p -> Files.isReadable(Path.of(p))); }

  /** As {@link #workerEnv()}, over {@code env} and the files {@code exists} says are there. */
  static Map<String, String> workerEnv(Map<String, String> env, Predicate<String> exists) {
    String choice = env.getOrDefault(ENV, "auto").trim();
    String preload = env.getOrDefault("LD_PRELOAD", "").trim();
    Map<String, String> out = new LinkedHashMap<>();
    String lib = switch (choice.toLowerCase(Locale.ROOT)) {
      case "", "auto" -> JEMALLOC.stream().filter(exists).findFirst().orElse(null);
      case "system", "glibc" -> null;
      case "jemalloc" -> JEMALLOC.stream().filter(exists).findFirst().orElseThrow(() -> new BadInputException(ENV
          + "=jemalloc, but no jemalloc library is installed (looked for " + String.join(", ", JEMALLOC)
          + "): install it (Debian/Ubuntu: apt-get install libjemalloc2; RHEL/Fedora: dnf install jemalloc), point " + ENV
          + " at its .so, or set " + ENV + "=system"));
      default -> {
        if (!choice.startsWith("/")) {
          throw new BadInputException(ENV + "=" + choice + " is not an allocator Weft knows: use auto, jemalloc, system, or the"
              + " absolute path of an allocator's shared library");
        }
        if (!exists.test(choice)) throw new BadInputException(ENV + "=" + choice + ": no such readable file; fix the path or set " + ENV + "=system");
        yield choice;
      }
    };
    if (lib == null || preload.contains(lib)) return out;
    // an allocator the user preloads already wins: ours would only be a second one, never called
    if (!preload.isEmpty() && choice.equalsIgnoreCase("auto") && preload.matches(".*(jemalloc|tcmalloc|mimalloc).*")) return out;
    out.put("LD_PRELOAD", preload.isEmpty() ? lib : preload + ":" + lib);
    if (!env.containsKey("MALLOC_CONF")) out.put("MALLOC_CONF", JEMALLOC_CONF);
    return out;
  }

  /**
   * jemalloc's settings for a worker unless the user gives {@code MALLOC_CONF}: no separate arena for blocks of 8 MiB
   * and more. That arena hands such blocks back to the kernel as soon as they are freed, so a step's large tensors
   * faulted in their pages afresh at every allocation: a Qwen2.5-0.5B LoRA step over an NF4 base took 15.8 s under
   * jemalloc's defaults against 6.5 s under glibc, 6.6–7.8 s with this (peak 1,147 / 1,420 / 1,183 MiB).
   */
  static final String JEMALLOC_CONF = "oversize_threshold:0";
}
