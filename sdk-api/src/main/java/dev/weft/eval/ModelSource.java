package dev.weft.eval;

import dev.weft.models.hf.HuggingFaceFormat;
import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.Trainer;
import dev.weft.error.WeftException;
import dev.weft.checkpoint.Checkpoint;
import dev.weft.checkpoint.CheckpointResolver;
import dev.weft.checkpoint.ConsolidatedWeights;
import dev.weft.checkpoint.Manifest;
import dev.weft.models.LanguageModel;
import dev.weft.models.hf.HfCheckpoint;
import dev.weft.models.hf.PeftAdapter;
import dev.weft.data.BuiltinSources;
import dev.weft.plan.Preflight;
import dev.weft.spec.SpecException;
import dev.weft.spec.SpecIO;
import dev.weft.spec.TrainingSpec;
import dev.weft.train.ModelBuilder;
import dev.weft.train.WholeModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.bytedeco.pytorch.Tensor;

/**
 * A trained model named by a path, built whole in this process: a Hugging Face directory
 * (config.json + safetensors), a consolidated weights file ({@code weft checkpoint consolidate},
 * with model.config.json beside it), or a checkpoint (one step directory or a root, whose newest
 * complete checkpoint is meant).
 */
public final class ModelSource {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(ModelSource.class);
  /** The model and the spec it was built from. */
  public record Loaded(LanguageModel model, TrainingSpec spec) {}

  private ModelSource() {}

  /**
   * As {@link #open(Path, int)}, for evaluation under autocast in {@code precision} ("fp32", "bf16", "fp16"): a Hugging
   * Face directory whose weights are stored in that 16-bit dtype keeps them as they are, memory-mapped (no fp32 copy;
   * see {@link ModelBuilder#frozenWhole}); anything else loads as {@link #open(Path, int)} does.
   */
  public static Loaded open(Path path, int seqLen, String precision) {
    boolean hf = Files.isDirectory(path) && !Files.isRegularFile(path.resolve(PeftAdapter.CONFIG))
        && Files.isRegularFile(path.resolve(HfCheckpoint.CONFIG));
    if (!hf) return open(path, seqLen);
    if ("fp32".equals(precision)) {
      String storedName = sixteenBitName(path);
      if (!storedName.isEmpty()) {
        log.info("{} stores {} weights: building fp32 copies of them (4 B per weight, written once); --precision {} uses"
            + " the file's weights as they are (no copy)", path, storedName, storedName);
      }
      return open(path, seqLen); // its checks (config before weights, memory before allocating) come in their order
    }
    var stored = HfCheckpoint.open(path, "MODEL").storedDtype();
    if (!precision.equals(dtypeName(stored))) return open(path, seqLen);
    TrainingSpec spec = hfSpec(path, seqLen).set("precision", precision).toSpec();
    Preflight.checkWhole(spec, Preflight.machineBytes(), precision); // the file's 16-bit weights, not an fp32 copy
    return new Loaded(ModelBuilder.frozenWhole(spec, stored.scalarType()), spec);
  }

  private static String dtypeName(dev.weft.checkpoint.DType d) {
    return d == dev.weft.checkpoint.DType.BF16 ? "bf16" : d == dev.weft.checkpoint.DType.F16 ? "fp16" : "";
  }

  /** "bf16"/"fp16" where the directory's weights are stored so, else ""; only a hint, so a directory that cannot be read says nothing here. */
  private static String sixteenBitName(Path dir) {
    try {
      return dtypeName(HfCheckpoint.open(dir, "MODEL").storedDtype());
    } catch (RuntimeException e) { // open(path, seqLen) reports it, after the checks that come first
      return "";
    }
  }

  public static Loaded open(Path path, int seqLen) {
    if (Files.isDirectory(path) && Files.isRegularFile(path.resolve(PeftAdapter.CONFIG))) return peft(path, seqLen);
    if (Files.isDirectory(path) && Files.isRegularFile(path.resolve(HfCheckpoint.CONFIG))) return huggingFace(path, seqLen);
    if (Files.isRegularFile(path)) return consolidated(path, seqLen);
    if (Files.isDirectory(path)) return checkpoint(path, seqLen);
    throw new SpecException("MODEL", path + " does not exist; give a Hugging Face directory, a consolidated .safetensors file or a checkpoint");
  }

  /**
   * Where the tokenizer of the model at {@code path} is, without loading the model: {@code path} itself when it holds
   * {@code tokenizer.json}, else the base it records — a PEFT adapter's {@code base_model_name_or_path}, a consolidated
   * file's or a checkpoint's (step, root or run directory) {@code model.pretrained} — when that one holds it; for a
   * checkpoint of a run from scratch, the tokenizer its token shards were prepared with.
   */
  public static java.util.Optional<Path> tokenizerDir(Path path) {
    if (Files.isDirectory(path) && Files.isRegularFile(path.resolve("tokenizer.json"))) return java.util.Optional.of(path);
    String base = "";
    try {
      if (Files.isDirectory(path) && Files.isRegularFile(path.resolve(PeftAdapter.CONFIG))) base = PeftAdapter.read(path, "MODEL").baseModel();
      else if (Files.isRegularFile(path)) {
        Path config = path.toAbsolutePath().getParent().resolve("model.config.json");
        if (Files.isRegularFile(config)) base = SpecIO.readTree(config).path("pretrained").asText("");
      } else if (Files.isDirectory(path) && !Files.isRegularFile(path.resolve(HfCheckpoint.CONFIG))) {
        // the base, or for a run from scratch the tokenizer its data was prepared with; the load verifies the shards
        return dev.weft.models.hf.TokenizerFiles.of(Checkpoint.openRecord(path).meta().trainingSpec());
      }
    } catch (RuntimeException e) {
      return java.util.Optional.empty(); // loading the model names what is wrong with it
    }
    if (base == null || base.isBlank() || !Files.isRegularFile(Path.of(base, "tokenizer.json"))) return java.util.Optional.empty();
    return java.util.Optional.of(Path.of(base));
  }

  private static Loaded huggingFace(Path dir, int seqLen) {
    TrainingSpec spec = hfSpec(dir, seqLen).toSpec();
    return new Loaded(build(spec), spec);
  }

  private static Trainer hfSpec(Path dir, int seqLen) {
    JsonNode config = HfCheckpoint.config(dir, "MODEL");
    String factory = HuggingFaceFormat.factoryFor(config.path("model_type").asText(""), "MODEL").name();
    return Trainer.model(factory).pretrained(dir).seqLen(seqLen).set("data.source", BuiltinSources.None.NAME);
  }

  /** A PEFT LoRA adapter directory over the base its adapter_config.json names. */
  private static Loaded peft(Path dir, int seqLen) {
    PeftAdapter a = PeftAdapter.read(dir, "MODEL");
    Path base = Path.of(a.baseModel());
    if (!Files.isRegularFile(base.resolve(HfCheckpoint.CONFIG))) {
      throw new dev.weft.error.BadInputException(dir.resolve(PeftAdapter.CONFIG) + " names the base " + base + ", which is not a Hugging Face"
          + " directory here; set base_model_name_or_path to the base model's directory");
    }
    String factory = HuggingFaceFormat.factoryFor(HfCheckpoint.config(base, "MODEL").path("model_type").asText(""), "MODEL").name();
    TrainingSpec spec = Trainer.model(factory).pretrained(base).seqLen(seqLen).set("data.source", BuiltinSources.None.NAME)
        .set("train.lora.rank", a.rank()).set("train.lora.alpha", a.alpha()).set("train.lora.rslora", a.rslora())
        .set("train.lora.targets", a.targets()).set("train.lora.adapter", dir.toString()).toSpec();
    return new Loaded(build(spec), spec);
  }

  private static Loaded consolidated(Path file, int seqLen) {
    Path config = file.toAbsolutePath().getParent().resolve("model.config.json");
    if (!Files.isRegularFile(config)) {
      throw new dev.weft.error.BadInputException(file + " has no model.config.json beside it; write it with weft checkpoint consolidate");
    }
    JsonNode model = SpecIO.readTree(config);
    Trainer t = Trainer.model(model.path("factory").asText("gpt"),
        SpecIO.jsonMapper().convertValue(model.path("config"), Map.class)).seqLen(seqLen).set("data.source", BuiltinSources.None.NAME);
    if (!model.path("pretrained").asText("").isBlank()) t.set("model.pretrained", model.path("pretrained").asText());
    return withWeights(t.toSpec(), ConsolidatedWeights.load(file));
  }

  private static Loaded checkpoint(Path dir, int seqLen) {
    Path root = Files.isDirectory(dir.resolve("checkpoints")) ? dir.resolve("checkpoints") : dir; // a run directory: its checkpoints
    Checkpoint c = Files.isRegularFile(dir.resolve(Manifest.FILE_NAME)) ? Checkpoint.open(dir)
        : CheckpointResolver.latest(root).orElseThrow(() -> new SpecException("MODEL", dir
            + " is neither a Hugging Face directory (config.json) nor a checkpoint (manifest.json, step-NNNNNN/ or checkpoints/)"));
    // the trained context length: a GPT's position embedding has exactly that many rows
    Map<String, Tensor> weights = ConsolidatedWeights.modelTensors(c);
    requireContext(weights, seqLen);
    return fromWeights(c.meta().trainingSpec(), weights);
  }

  /** Learned position embeddings have exactly as many rows as the trained context: a longer window has none to look up. */
  private static void requireContext(Map<String, Tensor> weights, int seqLen) {
    for (Map.Entry<String, Tensor> e : weights.entrySet()) {
      long rows = e.getValue().dim() == 2 ? e.getValue().size(0) : Long.MAX_VALUE;
      if (e.getKey().contains("pos_emb") && rows < seqLen) {
        throw new SpecException("--seq-len", seqLen + " is beyond the model's context of " + rows + " positions (learned position"
            + " embeddings); give --seq-len " + rows + " or less");
      }
    }
  }

  /** The whole model of a training spec (whatever its layout) holding {@code weights}, by parameter name. */
  public static Loaded fromWeights(TrainingSpec trained, Map<String, Tensor> weights) {
    return withWeights(WholeModel.spec(trained), weights);
  }

  private static Loaded withWeights(TrainingSpec spec, Map<String, Tensor> weights) {
    Preflight.checkWhole(spec, Preflight.machineBytes());
    return new Loaded(WholeModel.withWeights(spec, weights), spec);
  }

  private static LanguageModel build(TrainingSpec spec) {
    Preflight.checkWhole(spec, Preflight.machineBytes()); // sizes come from a file: refuse what cannot fit before allocating
    return ModelBuilder.whole(spec);
  }
}
