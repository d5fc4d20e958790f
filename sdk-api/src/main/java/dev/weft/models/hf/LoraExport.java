package dev.weft.models.hf;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.checkpoint.Checkpoint;
import dev.weft.checkpoint.ConsolidatedWeights;
import dev.weft.error.WeftException;
import dev.weft.spec.LoraSpec;
import dev.weft.spec.TrainingSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * A LoRA checkpoint written out: as a PEFT adapter directory ({@link PeftAdapter}), or merged into its
 * base as a Hugging Face directory, W + scale · B · A for each target in the base's dtype, every other
 * tensor copied bit for bit, the base's config.json and tokenizer files beside them.
 */
public final class LoraExport {
  /** What {@link #merged} wrote. */
  public record Merged(Path dir, int tensors, long bytes) {}

  private LoraExport() {}

  /** Whether {@code c} was saved by a LoRA run. */
  public static boolean isLora(Checkpoint c) { return c.meta().trainingSpec().train().lora().enabled(); }

  /**
   * Writes the checkpoint's adapters as a PEFT adapter directory, with the base's tokenizer files beside them (as
   * {@code save_pretrained} of a model with its tokenizer does), so generate and eval find them; returns the tensors written.
   */
  public static int peft(Checkpoint c, Path out) throws IOException {
    TrainingSpec spec = requireLora(c, "peft");
    int written = PeftAdapter.write(ConsolidatedWeights.modelTensors(c), spec.train().lora(), spec.model().pretrained(), out);
    Path base = Path.of(spec.model().pretrained());
    JsonNode config = Files.isRegularFile(base.resolve(HfCheckpoint.CONFIG)) ? HfCheckpoint.config(base, "model.pretrained") : null;
    if (Files.isDirectory(base)) HfFiles.copyCarried(base, out);
    TokenizerFiles.carry(TokenizerFiles.of(spec).orElse(null), out, config);
    return written;
  }

  /**
   * Writes the base with the checkpoint's adapters merged in. {@code base} is the base directory, or null
   * for the checkpoint's {@code model.pretrained}; its weights must hash as the checkpoint recorded. Tensor by tensor:
   * each is read (a memory map), merged, written and freed before the next, into shards of the Hub's size, so the peak
   * is about the largest tensor (in fp32 while merged) and the adapters, not the model.
   */
  public static Merged merged(Checkpoint c, Path base, Path out) throws IOException {
    TrainingSpec spec = requireLora(c, "hf");
    Path dir = base != null ? base : Path.of(spec.model().pretrained());
    Object hash = c.manifest().state() == null ? null : c.manifest().state().get("lora_base_sha256");
    if (hash instanceof String h) WeightsHash.requireSame(dir, h, "--base", c.dir());
    HfCheckpoint hf = HfCheckpoint.open(dir, "--base");
    Map<String, Tensor> adapters = ConsolidatedWeights.modelTensors(c);
    List<HfWeightsWriter.Entry> entries = new java.util.ArrayList<>();
    for (String name : new java.util.TreeSet<>(hf.names())) entries.add(new HfWeightsWriter.Entry(name, hf.dtype(name), hf.shape(name)));
    HfWeightsWriter.Written w = HfWeightsWriter.write(out, entries, e -> merge(hf.read(e.name()), e.name(), adapters, spec.train().lora()),
        HfShards.DEFAULT_MAX_BYTES);
    Files.copy(dir.resolve(HfCheckpoint.CONFIG), out.resolve(HfCheckpoint.CONFIG), StandardCopyOption.REPLACE_EXISTING);
    HfFiles.copyCarried(dir, out);
    TokenizerFiles.carry(TokenizerFiles.holdsTokenizer(dir) ? dir : TokenizerFiles.of(spec).orElse(null), out, HfCheckpoint.config(dir, "--base"));
    return new Merged(out, w.tensors(), w.bytes());
  }

  /** Base tensor {@code w} ({@code name}), with W + scale · B · A (computed in fp32, stored in W's dtype) where adapters exist. */
  static Tensor merge(Tensor w, String name, Map<String, Tensor> adapters, LoraSpec lora) {
    PretrainedWeights.requireSoundWeight(name, w, "--base"); // a damaged base is refused, not exported
    String module = name.endsWith(".weight") ? name.substring(0, name.length() - ".weight".length()) : name;
    Tensor a = adapters.get(module + ".lora_A.weight"), b = adapters.get(module + ".lora_B.weight");
    if (a == null || b == null) return w.contiguous();
    Tensor delta = torch.mm(b.to(torch.ScalarType.Float), a.to(torch.ScalarType.Float)).mul(new Scalar(lora.scale()));
    return w.to(torch.ScalarType.Float).add(delta).to(w.scalar_type()).contiguous();
  }

  private static TrainingSpec requireLora(Checkpoint c, String format) {
    TrainingSpec spec = c.meta().trainingSpec();
    if (!spec.train().lora().enabled()) {
      throw new WeftException("--format peft: " + c.dir() + " was not trained with LoRA (train.lora.rank is 0); use --format hf");
    }
    if (!spec.model().hasPretrained() && "hf".equals(format)) {
      throw new WeftException("--format hf: " + c.dir() + " holds LoRA adapters over a random base (no model.pretrained)"
          + "; export them with --format peft");
    }
    return spec;
  }
}
