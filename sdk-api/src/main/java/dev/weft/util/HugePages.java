package dev.weft.util;

import org.bytedeco.pytorch.global.torch;

/**
 * libtorch's CPU allocator puts tensors of 2 MiB and more on transparent huge pages when {@code THP_MEM_ALLOC_ENABLE=1}
 * (c10 reads the variable once, at the process's first tensor allocation). On a VM the first touch of fresh memory is
 * what building fp32 weights costs (4 B per parameter written once), and 2 MiB pages take 512 times fewer faults:
 * 1 GiB allocated and written went from ~8–12 s to ~5–6 s here (docs/performance.md, "Loading a Hugging Face model").
 * A value the user set is kept; called after the first allocation it changes nothing, which is harmless.
 */
public final class HugePages {
  static final String VARIABLE = "THP_MEM_ALLOC_ENABLE";
  private static boolean asked;

  private HugePages() {}

  /** Once per JVM, before the first tensor where possible: large tensors on huge pages unless the user said otherwise. */
  public static synchronized void enable() {
    if (asked) return;
    asked = true;
    if (System.getenv(VARIABLE) == null) torch.set_env(VARIABLE, "1", false); // c10's own setter, under its env lock
  }
}
