package dev.weft.cli;

import dev.weft.launch.UserPaths;
import dev.weft.checkpoint.Checkpoint;
import dev.weft.models.hf.LoraExport;
import dev.weft.checkpoint.CheckpointLayout;
import dev.weft.checkpoint.CheckpointResolver;
import dev.weft.checkpoint.CheckpointStorage;
import dev.weft.checkpoint.CheckpointStorages;
import dev.weft.checkpoint.LocalCheckpointStorage;
import dev.weft.checkpoint.ConsolidatedWeights;
import dev.weft.checkpoint.CorruptCheckpointException;
import dev.weft.checkpoint.DType;
import dev.weft.checkpoint.Manifest;
import dev.weft.checkpoint.TensorSlice;
import dev.weft.error.WeftException;
import dev.weft.spec.SpecException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code weft checkpoint inspect|consolidate}: look into a checkpoint, or turn its model weights into one file. */
@Command(name = "checkpoint", mixinStandardHelpOptions = true, description = "Inspect or consolidate checkpoints.",
    subcommands = {CheckpointCommand.Inspect.class, CheckpointCommand.Consolidate.class, CheckpointCommand.Export.class})
final class CheckpointCommand implements Runnable {
  @Override
  public void run() {
    picocli.CommandLine.usage(this, System.out);
  }

  /**
   * A DIR argument: a checkpoint directory (holding manifest.json) or a checkpoint root whose latest
   * good checkpoint is meant, on disk or at a URI ({@code s3://bucket/prefix[/step-N]}), whose files
   * are downloaded into a temporary folder that {@link #close} removes.
   */
  record Target(String arg, CheckpointStorage storage, OptionalLong step, Path cache) implements AutoCloseable {
    static Target of(String arg) {
      if (!CheckpointStorages.isUri(arg)) {
        Path p = Path.of(arg);
        return new Target(arg, new LocalCheckpointStorage(p), OptionalLong.empty(), null);
      }
      CheckpointStorages.Step s = CheckpointStorages.stepUri(arg);
      Path cache;
      try {
        cache = Files.createTempDirectory("weft-checkpoint-");
      } catch (java.io.IOException e) {
        throw new WeftException("cannot create a temporary folder to download " + arg + " into: " + e.getMessage());
      }
      try {
        CheckpointStorage st = CheckpointStorages.open(s == null ? arg : s.root(), cache);
        return new Target(arg, st, s == null ? OptionalLong.empty() : OptionalLong.of(s.step()), cache);
      } catch (RuntimeException e) {
        removeCache(cache);
        throw e;
      }
    }

    /** How to name checkpoint {@code c} to the user: its directory, or its URI rather than the download folder. */
    String shown(Checkpoint c) { return cache == null ? c.dir().toString() : storage.locationOf(c.step()); }

    /** Whether the argument names one checkpoint rather than a root of them. */
    boolean isStep() { return cache == null ? isStepDir(Path.of(arg)) : step.isPresent(); }

    /** The checkpoint with the lowest recorded eval loss under a run directory or checkpoint root ({@code --best}). */
    Checkpoint openBest() {
      if (isStep()) throw new dev.weft.error.BadInputException("--best: " + arg + " is one checkpoint; pass the run's directory or its checkpoint root");
      return cache == null ? Checkpoint.best(Path.of(arg)) : Checkpoint.best(storage, arg);
    }

    Checkpoint open() {
      if (cache == null) return CheckpointCommand.open(Path.of(arg));
      if (step.isPresent()) return Checkpoint.open(storage.fetch(step.getAsLong()));
      return CheckpointResolver.latest(storage, c -> {}).orElseThrow(() -> new SpecException("CHECKPOINT", arg
          + " holds no complete checkpoint; pass a checkpoint root (with step-NNNNNN/ under it) or one step-NNNNNN"));
    }

    @Override
    public void close() {
      storage.dropFetched();
      storage.close();
      if (cache != null) removeCache(cache);
    }

    private static void removeCache(Path cache) {
      try {
        CheckpointStorages.deleteLocalTree(cache);
      } catch (java.io.IOException e) {
        System.err.println("weft: could not remove the download folder " + cache + ": " + e.getMessage());
      }
    }
  }

  /** A checkpoint directory (holding manifest.json), or a checkpoint root or run directory whose latest good checkpoint is meant. */
  static Checkpoint open(Path dir) {
    if (!Files.exists(dir)) throw new SpecException("CHECKPOINT", dir + " does not exist; pass a checkpoint root or one step directory");
    if (isStepDir(dir)) return Checkpoint.open(dir);
    Path root = Files.isDirectory(dir.resolve("checkpoints")) ? dir.resolve("checkpoints") : dir; // a run directory
    return CheckpointResolver.latest(root).orElseThrow(() -> new SpecException("CHECKPOINT", dir
        + " holds no complete checkpoint; pass a checkpoint root (with step-NNNNNN/ directories) or one step directory"));
  }

  /** One checkpoint (it holds a manifest, or is named step-N) rather than a root of them. */
  static boolean isStepDir(Path dir) {
    Path name = dir.getFileName();
    return Files.isRegularFile(dir.resolve(Manifest.FILE_NAME)) || (name != null && CheckpointLayout.stepOf(name.toString()).isPresent());
  }

  @Command(name = "inspect", mixinStandardHelpOptions = true, description = "Step, layout, tensors, sizes and an integrity check of a checkpoint.")
  static final class Inspect implements Callable<Integer> {
    @Parameters(paramLabel = "DIR", description = "A checkpoint root or one step-NNNNNN directory, or s3://bucket/prefix[/step-NNNNNN].") String dir;

    // fallbackValue: without it picocli sets a negatable option that defaults to true to false when its plain
    // name is given, and --no-tensors back to the default (true): the flags did the opposite of their names
    @Option(names = "--tensors", negatable = true, defaultValue = "true", fallbackValue = "true",
        description = "List every tensor (default: on; --no-tensors hides the list).")
    boolean tensors;

    @Override
    public Integer call() {
      try (Target t = Target.of(dir)) {
        return inspect(t);
      }
    }

    private int inspect(Target t) {
      boolean damaged = false;
      if (!t.isStep()) damaged = listRoot(t.storage());
      Checkpoint c;
      try {
        c = t.open();
      } catch (CorruptCheckpointException e) {
        System.out.printf("checkpoint %s%n  integrity: DAMAGED — %s%n", dir, e.getMessage());
        return 1;
      }
      describe(c, t.shown(c));
      try {
        c.verify();
        System.out.printf("  integrity: OK (manifest checksum; %d file(s): sizes, SHA-256 and headers match the manifest)%n", c.manifest().files().size());
        return damaged ? 1 : 0;
      } catch (CorruptCheckpointException e) {
        System.out.printf("  integrity: DAMAGED — %s%n", e.getMessage());
        return 1;
      }
    }

    /** One line per committed checkpoint under a root, each verified; whether any is damaged. */
    private boolean listRoot(CheckpointStorage storage) {
      List<Long> all = storage.committedSteps().stream().sorted(java.util.Comparator.reverseOrder()).toList();
      System.out.printf("root %s: %d committed checkpoint(s)%s%n", dir, all.size(),
          all.isEmpty() ? "" : ", newest " + CheckpointLayout.stepDirName(all.get(0)));
      boolean damaged = false;
      for (long s : all) {
        try {
          Checkpoint.open(storage.fetch(s)).verify();
          System.out.printf("  %s  OK%n", CheckpointLayout.stepDirName(s));
        } catch (CorruptCheckpointException e) {
          damaged = true;
          System.out.printf("  %s  DAMAGED — %s%n", CheckpointLayout.stepDirName(s), e.getMessage());
        } finally {
          storage.dropFetched();
        }
      }
      return damaged;
    }

    private void describe(Checkpoint c, String shown) {
      Manifest m = c.manifest();
      System.out.printf("checkpoint %s%n  step %d, mesh dp=%d tp=%d pp=%d, zero %d, format %s v%d%n", shown, m.step(),
          m.mesh().dp(), m.mesh().tp(), m.mesh().pp(), m.zeroStage(), m.format(), m.version());
      if (m.state() != null && !m.state().isEmpty()) System.out.printf("  state %s%n", m.state());
      long total = 0;
      for (Map.Entry<String, Manifest.FileRecord> f : m.files().entrySet()) total += f.getValue().bytes();
      System.out.printf("  %d shard file(s), %s; %d tensor(s)%n", m.files().size(), human(total), m.tensors().size());
      if (!tensors) return;
      for (Map.Entry<String, Manifest.GlobalTensor> e : m.tensors().entrySet()) {
        Manifest.GlobalTensor t = e.getValue();
        long bytes = TensorSlice.product(t.shape()) * DType.fromSafetensors(t.dtype()).bytes();
        System.out.printf("  %-56s %-4s %-16s %9s in %d piece(s)%n", e.getKey(), t.dtype(), Arrays.toString(t.shape()), human(bytes), t.pieces().size());
      }
    }
  }

  @Command(name = "consolidate", mixinStandardHelpOptions = true,
      description = "Write the model/* tensors as one unsharded safetensors file, and model.config.json beside it.")
  static final class Consolidate implements Callable<Integer> {
    @Parameters(paramLabel = "DIR", description = "A checkpoint root or one step-NNNNNN directory, or s3://bucket/prefix[/step-NNNNNN].") String dir;

    @Option(names = {"-o", "--output"}, required = true, description = "The safetensors file to write, e.g. model.safetensors.")
    Path out;

    @Override
    public Integer call() throws Exception {
      UserPaths.writableFile(out, "--output");
      try (Target t = Target.of(dir)) {
        Checkpoint c = t.open();
        ConsolidatedWeights.Result r = ConsolidatedWeights.write(c, out);
        System.out.printf("weft: wrote %d tensor(s), %s, from step %d to %s; model config in %s%n", r.tensors(), human(r.bytes()),
            c.step(), r.weights(), r.config());
      }
      return 0;
    }
  }

  @Command(name = "export", mixinStandardHelpOptions = true,
      description = {"Write a checkpoint's model as a Hugging Face directory (model.safetensors + config.json) that transformers loads.",
          "A LoRA run's checkpoint: --format hf merges the adapters into the base, --format peft writes a PEFT adapter directory."})
  static final class Export implements Callable<Integer> {
    @Parameters(paramLabel = "DIR", description = "A checkpoint root or one step-NNNNNN directory, or s3://bucket/prefix[/step-NNNNNN].") String dir;

    @Option(names = "--format", required = true, description = "hf (Hugging Face; merged for LoRA) or peft (a LoRA run's adapters).")
    String format;

    @Option(names = "--base", paramLabel = "HF_DIR", description = "LoRA: the base model directory, if not the run's model.pretrained.")
    Path base;

    @Option(names = {"-o", "--output"}, required = true, paramLabel = "OUT_DIR", description = "The directory to write.") Path out;

    @Option(names = "--best", description = "The checkpoint with the lowest eval loss (checkpoint.saveBest) instead of the latest;"
        + " DIR is the run's directory or its checkpoint root.") boolean best;

    @Option(names = "--dtype", paramLabel = "bf16|fp16|fp32",
        description = "The weights' dtype (default: the source model's torch_dtype, else fp32).") String dtype;

    @Option(names = "--max-shard-size", paramLabel = "SIZE", defaultValue = "5GB",
        description = "Largest weights file, as the Hub spells it (5GB, 500MB, 2GiB); larger models are split into "
            + "model-0000i-of-0000n.safetensors with model.safetensors.index.json (default: ${DEFAULT-VALUE}).") String maxShardSize;

    @Override
    public Integer call() throws Exception {
      if (!"hf".equals(format) && !"peft".equals(format)) throw new dev.weft.error.BadInputException("--format " + format + " is not known; use hf or peft");
      var options = ModelCommand.exportOptions(dtype, maxShardSize);
      UserPaths.writableWhenMade(out, "--output"); // a file there, or no way to make it, before the checkpoint is read
      try (Target t = Target.of(dir)) {
        Checkpoint c = best ? t.openBest() : t.open();
        dev.weft.tracking.ExportLineage.write(t.storage(), t.cache() == null ? c.dir() : null, t.shown(c), c.step(), format, out);
        if ("peft".equals(format)) {
          int n = LoraExport.peft(c, out);
          System.out.printf("weft: wrote %d adapter tensor(s) from step %d as a PEFT adapter in %s%n", n, c.step(), out);
          return 0;
        }
        if (LoraExport.isLora(c)) {
          LoraExport.Merged r = LoraExport.merged(c, base, out);
          System.out.printf("weft: wrote %d tensor(s), %s, the base with step %d's adapters merged, as a Hugging Face model in %s%n",
              r.tensors(), human(r.bytes()), c.step(), r.dir());
          return 0;
        }
        dev.weft.models.hf.HfExport.Result r = dev.weft.models.hf.HfExport.write(ConsolidatedWeights.modelTensors(c),
            c.meta().trainingSpec(), out, options);
        System.out.printf("weft: wrote %d tensor(s), %s in %d file(s), %s, from step %d as a Hugging Face model in %s%n", r.tensors(),
            human(r.bytes()), r.files(), r.dtype(), c.step(), r.dir());
        System.out.println("weft: " + ModelCommand.configLine(r));
      }
      return 0;
    }
  }

  static String human(long bytes) {
    if (bytes < 1024) return bytes + " B";
    if (bytes < 1 << 20) return String.format("%.1f KiB", bytes / 1024.0);
    if (bytes < 1L << 30) return String.format("%.1f MiB", bytes / 1048576.0);
    return String.format("%.2f GiB", bytes / 1073741824.0);
  }
}
