package dev.weft;

import dev.weft.plan.SpecCheck;
import dev.weft.error.WeftException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.launch.LocalLauncher;
import dev.weft.launch.RunDirLock;
import dev.weft.launch.ThreadedRun;
import dev.weft.launch.WorkerMain;
import dev.weft.spec.SpecIO;
import dev.weft.spec.SpecOverrides;
import dev.weft.spec.TrainingSpec;
import dev.weft.train.RunResult;
import dev.weft.train.StepListener;
import dev.weft.util.NativeThreads;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The fluent way to write a {@link TrainingSpec}:
 *
 * <pre>{@code
 * RunResult r = Trainer.model("gpt").size("tiny").dataParallel(2).steps(50).fit();
 * }</pre>
 *
 * Every method sets one spec field through the same path as {@code --set}; {@link #toSpec()}
 * validates and returns the spec. The DSL holds no other logic.
 *
 * <p>A {@code Trainer} is an immutable value: every setter returns a new one and leaves the one it was called on as it
 * was, so two configurations branch from one base ({@code base.lr(1e-3)} and {@code base.lr(3e-4)} are two runs, and
 * {@code base} is neither).
 */
public final class Trainer {
  private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(120);

  private final ObjectNode tree; // never changed after construction: a setter changes a copy
  private final Path runDir; // null: each fit() makes a temporary one
  private final StepListener listener;
  private final Duration timeout;
  private final Path temporaryRoot; // where fit() makes a temporary run directory; null: the system's

  private Trainer(ObjectNode tree, Path runDir, StepListener listener, Duration timeout, Path temporaryRoot) {
    this.tree = tree;
    this.runDir = runDir;
    this.listener = listener;
    this.timeout = timeout;
    this.temporaryRoot = temporaryRoot;
  }

  private static Trainer of(ObjectNode tree) { return new Trainer(tree, null, StepListener.NONE, DEFAULT_TIMEOUT, null); }

  /** A model by factory name ({@code gpt}) or ModelFactory class name. */
  public static Trainer model(String factory) {
    ObjectNode tree = SpecIO.defaultsTree();
    tree.set("model", tree.objectNode().put("factory", factory).set("config", tree.objectNode()));
    return of(tree);
  }

  public static Trainer model(String factory, Map<String, ?> config) { return model(factory).withConfig(config); }

  /** This Trainer with each entry of {@code config} set under {@code model.config}. */
  private Trainer withConfig(Map<String, ?> config) {
    Trainer t = this;
    for (Map.Entry<String, ?> e : config.entrySet()) t = t.set("model.config." + e.getKey(), e.getValue());
    return t;
  }

  /**
   * A model by its factory object: the spec records the factory's class name (so every worker, in
   * any process, builds the same model), which therefore needs a public no-argument constructor.
   */
  public static Trainer model(dev.weft.models.ModelFactory factory) {
    Class<?> c = factory.getClass();
    try {
      if (!java.lang.reflect.Modifier.isPublic(c.getModifiers())) throw new NoSuchMethodException();
      c.getConstructor();
    } catch (NoSuchMethodException e) {
      throw new dev.weft.spec.SpecException("model.factory", c.getName()
          + " needs to be a public class with a public no-argument constructor; workers create it by name");
    }
    return model(c.getName());
  }

  /** A model by factory object with a typed config (a record), stored as {@code model.config}. */
  public static Trainer model(dev.weft.models.ModelFactory factory, Object config) {
    return model(factory).withConfig(dev.weft.models.ModelConfigs.toMap(config));
  }

  /** Starts from an existing spec (for example one read from YAML). */
  public static Trainer from(TrainingSpec spec) { return of(SpecIO.toTree(spec)); }

  public static Trainer from(Path specFile) { return from(SpecIO.read(specFile)); }
  /** As {@link #from(Path)}, the spec file named as a string. */
  public static Trainer from(String specFile) { return from(Path.of(specFile)); }

  /** A copy with any field set by its dotted path, exactly like {@code --set PATH=VALUE}. */
  public Trainer set(String path, Object value) {
    ObjectNode copy = tree.deepCopy();
    SpecOverrides.set(copy, path, SpecIO.yamlMapper().valueToTree(value));
    return new Trainer(copy, runDir, listener, timeout, temporaryRoot);
  }

  public Trainer name(String name) { return set("name", name); }
  /** {@code cpu}, {@code cuda} or {@code auto}: where the model, batches, gradients and optimizer state live. */
  public Trainer device(String device) { return set("device", device); }
  public Trainer size(String size) { return set("model.config.size", size); }
  public Trainer dataParallel(int n) { return set("parallel.dp", n); }
  public Trainer tensorParallel(int n) { return set("parallel.tp", n); }
  public Trainer sequenceParallel() { return set("parallel.sequenceParallel", true); }
  public Trainer pipeline(int n) { return set("parallel.pp", n); }
  public Trainer microBatches(int n) { return set("parallel.microBatches", n); }
  public Trainer schedule(String name) { return set("parallel.schedule", name); }
  public Trainer zero(int stage) { return set("parallel.zero", stage); }

  /** ZeRO-3: gather groups fetched ahead of the one computing ({@code parallel.zeroPrefetch}). */
  public Trainer zeroPrefetch(int groups) { return set("parallel.zeroPrefetch", groups); }

  /** ZeRO-2/3: reduce-scatter bucket and least gather group, in MiB of fp32 ({@code parallel.zeroBucketMiB}). */
  public Trainer zeroBucketMiB(double mib) { return set("parallel.zeroBucketMiB", mib); }

  /** Context parallelism: each sequence split over {@code n} ranks ({@code parallel.cp}). */
  public Trainer contextParallel(int n) { return set("parallel.cp", n); }

  /** Expert parallelism: a MoE layer's experts split over {@code n} ranks of the dp group ({@code parallel.ep}). */
  public Trainer expertParallel(int n) { return set("parallel.ep", n); }

  /** HSDP: ZeRO-1/2/3 sharded within groups of {@code n} consecutive dp ranks, replicated across them ({@code parallel.zeroShardSize}). */
  public Trainer zeroShardSize(int n) { return set("parallel.zeroShardSize", n); }
  /** bf16 compute with fp32 master weights. */
  public Trainer mixedPrecision() { return precision("bf16"); }
  public Trainer precision(String dtype) { return set("precision", dtype); }
  public Trainer optimizer(String name) { return set("train.optimizer", name); }
  public Trainer lr(double lr) { return set("train.lr", lr); }
  /** The final learning rate, absolute ({@code train.minLr}); without it the final rate is {@link #minLrRatio} × lr. */
  public Trainer minLr(double lr) { return set("train.minLr", lr); }
  /** The final learning rate as a fraction of {@code lr} ({@code train.minLrRatio}, default 0.1). */
  public Trainer minLrRatio(double ratio) { return set("train.minLrRatio", ratio); }
  /** {@code constant}, {@code linear}, {@code cosine} (default) or {@code wsd} ({@code train.schedule}). */
  public Trainer lrSchedule(String kind) { return set("train.schedule", kind); }
  public Trainer warmup(int steps) { return set("train.warmup", steps); }
  /** Warm-up over this fraction of the steps ({@code train.warmupRatio}) instead of {@link #warmup} steps. */
  public Trainer warmupRatio(double ratio) { return set("train.warmupRatio", ratio); }
  public Trainer globalBatch(int n) { return set("train.globalBatch", n); }
  public Trainer steps(int n) { return set("train.steps", n); }
  public Trainer seed(long seed) { return set("train.seed", seed); }
  public Trainer clipGradNorm(double max) { return set("train.clipGradNorm", max); }
  /**
   * The loss-spike guard ({@code train.lossSpike}): a loss above {@code factor} × the median of the last {@code window}
   * steps stops the run as diverged ({@code "stop"}) or leaves the step's update out ({@code "skip"}).
   */
  public Trainer lossSpike(double factor, int window, String action) {
    return set("train.lossSpike.factor", factor).set("train.lossSpike.window", window).set("train.lossSpike.action", action);
  }
  public Trainer recompute() { return set("train.recompute", true); }

  /** LoRA adapters of {@code rank} (scale alpha / rank) on the attention and MLP projections; the base stays frozen. */
  public Trainer lora(int rank, double alpha) { return set("train.lora.rank", rank).set("train.lora.alpha", alpha); }
  /**
   * DPO over preference pairs ({@code train.objective: dpo}, {@code train.dpo.beta}); the data is
   * {@code preference:DIR} from {@code weft data prepare --format preference}, the global batch counts rows (2 per pair).
   */
  public Trainer dpo(double beta) { return set("train.objective", "dpo").set("train.dpo.beta", beta); }
  /**
   * GRPO ({@code train.objective: grpo}) with {@code groupSize} completions per prompt; the data is a JSONL file of
   * prompts, the global batch counts completions; add rewards with {@link #reward}.
   */
  public Trainer grpo(int groupSize) { return set("train.objective", "grpo").set("train.grpo.groupSize", groupSize); }

  /** A GRPO reward in Java, weight 1 (runs in this JVM: {@link #fit()}; worker processes need a class name in YAML). */
  public Trainer reward(dev.weft.train.grpo.RewardFunction fn) { return reward(fn, 1.0); }

  /** A GRPO reward in Java with its weight in the summed reward. */
  public Trainer reward(dev.weft.train.grpo.RewardFunction fn, double weight) {
    java.util.List<Object> rewards = new java.util.ArrayList<>();
    com.fasterxml.jackson.databind.JsonNode now = tree.path("train").path("grpo").path("rewards");
    if (now.isArray()) now.forEach(rewards::add);
    rewards.add(Map.of("name", dev.weft.train.grpo.CodeRewards.register(fn), "weight", weight));
    return set("train.grpo.rewards", rewards);
  }

  public Trainer data(String source) { return set("data.source", source); }
  /** A token-shard directory, a .npy or a text file as {@code data.source}. */
  public Trainer data(Path source) { return data(source.toString()); }
  /** Mix sources by weight ({@code data.sources}), in the map's iteration order (use a LinkedHashMap). */
  public Trainer dataMix(Map<String, Double> weights) {
    List<Map<String, Object>> mix = new java.util.ArrayList<>();
    weights.forEach((source, w) -> mix.add(Map.of("source", source, "weight", w)));
    return set("data.sources", mix);
  }

  /** Hold out this fraction of each data source for evaluation ({@code data.validation}). */
  public Trainer validationSplit(double fraction) { return set("data.validation", fraction); }
  /** Evaluate on a held-out set from its own source, read whole ({@code data.eval}; any form {@code data.source} takes). */
  public Trainer evalData(String source) { return set("data.eval", source); }
  public Trainer evalData(Path source) { return evalData(source.toString()); }
  /** Keep the checkpoint with the lowest eval loss ({@code checkpoint.saveBest}; needs {@code train.evalEvery}). */
  public Trainer saveBest() { return set("checkpoint.saveBest", true); }
  /** Save a checkpoint every {@code steps} steps (under {@code checkpoint.dir}, default RUN_DIR/checkpoints). */
  public Trainer checkpointEvery(int steps) { return set("checkpoint.every", steps); }
  public Trainer checkpointDir(Path dir) { return checkpointDir(dir.toString()); }
  /** A local directory or {@code s3://bucket/prefix}. */
  public Trainer checkpointDir(String dir) { return set("checkpoint.dir", dir); }
  /** Continue from {@code latest} or a checkpoint directory, in whatever layout this run has. */
  public Trainer resume(String latestOrPath) { return set("checkpoint.resume", latestOrPath); }
  /** Resume from this checkpoint (one step directory, or a root whose newest is meant). */
  public Trainer resume(Path checkpoint) { return resume(checkpoint.toString()); }
  /** Start from consolidated weights ({@code weft checkpoint consolidate}). */
  public Trainer initWeights(Path file) { return initWeights(file.toString()); }
  public Trainer initWeights(String file) { return set("checkpoint.initWeights", file); }
  /** Start from a Hugging Face model directory (config.json + safetensors): its sizes and weights. */
  public Trainer pretrained(Path hfDir) { return pretrained(hfDir.toString()); }
  public Trainer pretrained(String hfDir) { return set("model.pretrained", hfDir); }
  public Trainer seqLen(int n) { return set("data.seqLen", n); }

  /** Where run outputs go (default: a new temporary directory). */
  public Trainer runDir(Path dir) { return new Trainer(tree, dir, listener, timeout, temporaryRoot); }

  public Trainer runDir(String dir) { return runDir(Path.of(dir)); }

  /** Called on rank 0 after each step of {@link #fit()}. */
  public Trainer onStep(StepListener l) { return new Trainer(tree, runDir, l, timeout, temporaryRoot); }

  /**
   * Elastic between {@code minNodes} and {@code maxNodes} nodes: {@link #launch} runs this node's agent
   * (rendezvous as {@link #rendezvous} says, by default c10d at 127.0.0.1:29400; id = the spec name; see docs/elastic.md).
   */
  public Trainer elastic(int minNodes, int maxNodes) {
    return set("elastic.enabled", true).set("elastic.minNodes", minNodes).set("elastic.maxNodes", maxNodes);
  }

  /**
   * Where the elastic agents rendezvous: {@code "c10d"} (the agent on the endpoint's host hosts the store) or
   * {@code "etcd"} (an etcd you run at {@code endpoint}, e.g. "10.0.0.5:2379"; losing any node keeps the run).
   */
  public Trainer rendezvous(String backend, String endpoint) {
    return set("elastic.rdzvBackend", backend).set("elastic.rdzvEndpoint", endpoint);
  }

  /** Warm standby worker JVMs each elastic agent keeps ready to take over a rank (default 1; 0: start every worker cold). */
  public Trainer standby(int spares) { return set("elastic.standby", spares); }

  public Trainer timeout(Duration d) { return new Trainer(tree, runDir, listener, d, temporaryRoot); }

  /** Temporary run directories under {@code root} instead of the system's (for tests that watch them come and go). */
  Trainer temporaryUnder(Path root) { return new Trainer(tree, runDir, listener, timeout, root); }

  /** The validated spec. */
  public TrainingSpec toSpec() { return SpecCheck.validate(SpecIO.bind(tree)); }

  /**
   * Trains in this JVM: one thread per rank. Returns the per-step losses and the summary. Without {@link #runDir} the
   * run writes into a new temporary directory, removed when the run completes (kept when it fails, for its summary).
   */
  public RunResult fit() {
    TrainingSpec spec = toSpec();
    Path dir = runDir != null ? runDir : newTemporary();
    try (RunDirLock lock = RunDirLock.acquire(dir, null, "runDir")) {
      RunResult r = ThreadedRun.run(spec, dir, timeout, listener);
      if (runDir == null) {
        lock.close();
        removeTemporary(dir);
      }
      return r;
    } catch (dev.weft.train.RunPreemptedException e) {
      dev.weft.preempt.Preemption.exitAfterSave(); // SIGTERM asked this JVM to end: now that the checkpoint is committed
      throw e; // stopped by Preemption.request() in an application that handles SIGTERM itself
    }
  }

  /** Trains with {@code dp × tp × pp} worker processes on this machine; returns the launcher's outcome. */
  public LocalLauncher.Outcome launch(PrintStream console) {
    TrainingSpec spec = toSpec();
    Path dir = runDir != null ? runDir : newTemporary(); // kept: the workers' logs and outputs are the outcome
    if (spec.elastic().enabled()) return dev.weft.elastic.ElasticAgent.launchLocal(spec, dir, console); // the agent locks dir
    try (RunDirLock lock = RunDirLock.acquire(dir, null, "runDir")) {
      Path file = dir.resolve("spec.yaml");
      SpecIO.write(spec, file);
      LocalLauncher l = new LocalLauncher(List.of(WorkerMain.CLASS, "worker", "--spec", file.toString(), "--run-dir",
          dir.toString(), "--timeout", String.valueOf(timeout.toSeconds())), Map.of(), console);
      return l.run(spec.worldSize(), NativeThreads.perRank(spec.worldSize()));
    }
  }

  /** Deletes a run directory {@link #fit()} made itself. */
  private static void removeTemporary(Path dir) {
    try (java.util.stream.Stream<Path> all = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) all.sorted(java.util.Comparator.reverseOrder())::iterator) Files.deleteIfExists(p);
    } catch (java.io.IOException | java.io.UncheckedIOException e) {
      org.slf4j.LoggerFactory.getLogger(Trainer.class).warn("could not remove the temporary run directory {}: {}", dir, e.getMessage());
    }
  }

  private Path newTemporary() {
    try {
      return temporaryRoot == null ? Files.createTempDirectory("weft-run-") : Files.createTempDirectory(temporaryRoot, "weft-run-");
    } catch (java.io.IOException e) {
      throw new WeftException("cannot create a run directory: " + e.getMessage(), e);
    }
  }
}
