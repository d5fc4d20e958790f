package dev.weft.models.hf;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.checkpoint.DType;
import dev.weft.models.ModelFactories;
import dev.weft.spec.TrainingSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bytedeco.pytorch.Tensor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes whole model weights as a Hugging Face directory that transformers loads: the weights under
 * Hugging Face's names in the dtype asked for (by default the source's), split like the Hub's; the
 * source's config.json ({@code model.pretrained}) kept field by field with only what training changed
 * ({@link ExportConfig}); and the source's tokenizer and generation files copied beside them (a run from scratch: the
 * tokenizer its shards were prepared with), with a generation_config.json written where none came ({@link TokenizerFiles}).
 */
public final class HfExport {
  private static final Logger log = LoggerFactory.getLogger(HfExport.class);

  /** How to write: the weights' dtype (null: the source's, else fp32) and the largest file. */
  public record Options(DType dtype, long maxShardBytes) {
    public static Options defaults() { return new Options(null, HfShards.DEFAULT_MAX_BYTES); }
  }

  /**
   * What was written: {@code source} is the model directory config.json came from (null: none),
   * {@code changed} the config.json keys that differ from it (key → "old → new"), {@code copied} the
   * tokenizer and generation files carried beside the weights (copied, or generation_config.json written).
   */
  public record Result(Path dir, int tensors, long bytes, int files, DType dtype, Path source, Map<String, String> changed,
                       List<String> copied) {}

  private HfExport() {}

  public static Result write(Map<String, Tensor> weights, TrainingSpec spec, Path dir) throws IOException {
    return write(weights, spec, dir, Options.defaults());
  }

  public static Result write(Map<String, Tensor> weights, TrainingSpec spec, Path dir, Options options) throws IOException {
    HuggingFaceFormat hf = HuggingFaceFormat.of(ModelFactories.lookup(spec.model().factory()));
    Map<String, Tensor> out = hf.toHf(weights, spec);
    Path source = spec.model().hasPretrained() ? Path.of(spec.model().pretrained()) : null;
    if (source != null && !Files.isRegularFile(source.resolve(HfCheckpoint.CONFIG))) {
      log.warn("model.pretrained {} has no config.json any more: the export's config.json is Weft's own", source);
      source = null;
    }
    JsonNode sourceConfig = source == null ? null : HfCheckpoint.config(source, "model.pretrained");
    DType dtype = options.dtype() != null ? options.dtype()
        : sourceConfig != null && HfDtypes.declared(sourceConfig) != null ? HfDtypes.declared(sourceConfig) : DType.F32;
    ExportConfig config = ExportConfig.of(sourceConfig, hf.hfConfig(spec), source == null ? null : hf.hfConfig(ExportConfig.sourceView(spec)),
        dtype, out.containsKey("lm_head.weight"));

    List<HfWeightsWriter.Entry> entries = new ArrayList<>();
    out.forEach((name, t) -> entries.add(new HfWeightsWriter.Entry(name, dtype, t.sizes().vec().get())));
    HfWeightsWriter.Written w = HfWeightsWriter.write(dir, entries, e -> out.get(e.name()).to(dtype.scalarType()).contiguous(),
        options.maxShardBytes());
    Path tokenizer = TokenizerFiles.of(spec).orElse(null);
    List<Long> eos = TokenizerFiles.eosIds(config.json(), tokenizer);
    // a run from scratch: its config.json is Weft's, which knows no eos; a source's stays as it was (generation_config carries the eos)
    if (source == null && !config.json().hasNonNull("eos_token_id") && !eos.isEmpty()) config.json().put("eos_token_id", eos.get(0));
    HfFiles.writeJson(dir.resolve(HfCheckpoint.CONFIG), config.json());
    List<String> copied = new ArrayList<>(source == null ? List.of() : HfFiles.copyCarried(source, dir));
    copied.addAll(TokenizerFiles.carry(tokenizer, dir, config.json()));
    log.debug("exported {} tensors ({}) to {}; config.json {}", w.tensors(), dtype, dir,
        source == null ? "written by Weft (no model.pretrained)" : config.changed().isEmpty() ? "as in " + source
            : "from " + source + ", changed " + config.changed());
    return new Result(dir, w.tensors(), w.bytes(), w.files().size(), dtype, source, config.changed(), copied);
  }
}
