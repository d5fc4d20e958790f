package dev.weft.checkpoint;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.global.torch;

/**
 * Child process of {@link CrashSafetyTest}: resumes after the latest checkpoint under DIR and saves
 * step after step (every tensor filled with the step number) until it is killed.
 */
public final class CrashLoopSaver {
  static final long[][] SHAPES = {{1024, 1024}, {2048, 1024}, {512, 1024}, {1024}, {}};

  public static void main(String[] args) {
    Path root = Path.of(args[0]);
    boolean async = args.length > 1 && Boolean.parseBoolean(args[1]);
    long step = CheckpointResolver.latest(root).map(Checkpoint::step).orElse(0L) + 1;
    try (Checkpointer c = Checkpointer.local(root, new Checkpointer.Options(2, async, Duration.ofSeconds(60)))) {
      while (true) {
        System.out.println("saving " + step);
        System.out.flush();
        c.save(new CheckpointMeta(step, new CheckpointMeta.Mesh(1, 1, 1), 0, null, Map.of("step", step)), entries(step));
        step++;
      }
    }
  }

  static List<StateEntry> entries(long step) {
    java.util.ArrayList<StateEntry> out = new java.util.ArrayList<>();
    for (int i = 0; i < SHAPES.length; i++) {
      out.add(StateEntry.whole("model/t" + i, torch.full(SHAPES[i], new Scalar((float) step)), true));
    }
    return out;
  }

  private CrashLoopSaver() {}
}
